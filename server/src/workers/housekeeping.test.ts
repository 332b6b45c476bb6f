// Housekeeping deletes only what can no longer matter, on both dialects, and one failing job does not stop the rest.
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { createLogger } from '../platform/log';
import { testConfig } from '../platform/config';
import { OIDC_RETENTION_MS } from '../features/oidc/index';
import { runHousekeeping, X402_REFERENCE_GRACE_MS, X402_SETTLEMENT_RETENTION_MS } from './housekeeping';
import { setUsage } from '@sigil/test/support/ratelimit-usage';

const NOW = Date.UTC(2026, 10, 21, 12, 30, 17);
const log = createLogger(testConfig({ LOG_LEVEL: 'silent' }));

function reference(ref: string, expiresAt: number) {
  return {
    reference: ref,
    request_hash: 'ab'.repeat(32),
    payer: 'payer',
    nonce: 'n',
    route: 'resolve',
    amount: '5000',
    issued_at: expiresAt - 600_000,
    expires_at: expiresAt,
  };
}

describeEachDialect('housekeeping', (ctx) => {
  it('drops idle keys rate windows and unpaid references past their grace; keeps current windows, recent and paid references', async () => {
    const day = NOW - (NOW % 86_400_000);
    await setUsage(ctx.db, 'key_idle', { minute: 3, day: 3 }, NOW - 2 * 86_400_000); // idle since before yesterday
    await setUsage(ctx.db, 'key_yesterday', { minute: 1, day: 1 }, NOW - 86_400_000);
    await setUsage(ctx.db, 'key_today', { minute: 1, day: 1 }, NOW);
    await ctx.db
      .insertInto('x402_references')
      .values([
        reference('old-unpaid', NOW - X402_REFERENCE_GRACE_MS - 1),
        reference('old-paid', NOW - X402_REFERENCE_GRACE_MS - 1),
        reference('recently-expired', NOW - 60_000),
      ])
      .execute();
    await ctx.db
      .insertInto('x402_payments')
      .values({
        signature: 'sig',
        reference: 'old-paid',
        payer: 'payer',
        amount: '5000',
        request_hash: 'ab'.repeat(32),
        consumed_at: NOW - X402_REFERENCE_GRACE_MS,
      })
      .execute();

    const settlement = (key: string, startedAt: number) => ({
      payment_key: key,
      request_hash: 'cd'.repeat(32),
      payer: 'payer',
      amount: '5000',
      network: 'solana:devnet',
      started_at: startedAt,
      transaction: null,
      served_at: null,
    });
    await ctx.db
      .insertInto('x402_settlements')
      .values([settlement('old', NOW - X402_SETTLEMENT_RETENTION_MS - 1), settlement('recent', NOW - 600_000)])
      .execute();

    const deleted = await runHousekeeping(
      {
        db: ctx.db,
        connect: { deleteExpiredChallenges: async () => 2 },
        sessions: { deleteExpired: async () => 3 },
        log,
      },
      NOW,
    );

    expect(deleted).toEqual({
      rateWindows: 1,
      connectChallenges: 2,
      connectSessions: 3,
      x402References: 1,
      x402Settlements: 1,
      usageHistory: 0,
      oidcArtifacts: 0,
    });
    const settlements = await ctx.db.selectFrom('x402_settlements').select('payment_key').execute();
    expect(settlements.map((r) => r.payment_key)).toEqual(['recent']);
    const refs = await ctx.db.selectFrom('x402_references').select('reference').orderBy('reference').execute();
    expect(refs.map((r) => r.reference)).toEqual(['old-paid', 'recently-expired']);
    const windows = await ctx.db.selectFrom('rate_limits').select(['key_id', 'day_start']).orderBy('key_id').execute();
    expect(windows).toEqual([
      { key_id: 'key_today', day_start: day },
      { key_id: 'key_yesterday', day_start: day - 86_400_000 },
    ]);
  });

  it('a failing job is reported by its absence and does not stop the others', async () => {
    const deleted = await runHousekeeping(
      {
        db: ctx.db,
        connect: { deleteExpiredChallenges: async () => Promise.reject(new Error('db busy')) },
        sessions: { deleteExpired: async () => 0 },
        log,
      },
      NOW,
    );
    expect(Object.keys(deleted).sort()).toEqual([
      'connectSessions',
      'oidcArtifacts',
      'rateWindows',
      'usageHistory',
      'x402References',
      'x402Settlements',
    ]);
  });

  it('drops OpenID Connect codes, tokens, sessions and logins expired over a day ago; keeps live and recent ones', async () => {
    const payload = (model: string, id: string, expiresAt: number | null) => ({
      model,
      id,
      payload: '{}',
      grant_id: null,
      uid: null,
      user_code: null,
      expires_at: expiresAt,
      consumed_at: null,
    });
    const old = NOW - OIDC_RETENTION_MS - 1;
    await ctx.db
      .insertInto('oidc_payloads')
      .values([
        payload('AuthorizationCode', 'old-code', old),
        payload('AccessToken', 'old-token', old),
        payload('Session', 'old-session', old),
        payload('AuthorizationCode', 'recently-expired-code', NOW - 60_000),
        payload('RefreshToken', 'live-token', NOW + 3_600_000),
        payload('Grant', 'no-expiry', null),
      ])
      .execute();
    const login = (grantId: string, expiresAt: number) => ({
      grant_id: grantId,
      session_jti: `jti-${grantId}`,
      client_id: 'key_x',
      address: 'wallet',
      amr: 'sigil-signature',
      sid: null,
      expires_at: expiresAt,
    });
    await ctx.db
      .insertInto('oidc_logins')
      .values([login('old-grant', old), login('live-grant', NOW + 3_600_000)])
      .execute();

    const deleted = await runHousekeeping(
      {
        db: ctx.db,
        connect: { deleteExpiredChallenges: async () => 0 },
        sessions: { deleteExpired: async () => 0 },
        log,
      },
      NOW,
    );

    expect(deleted.oidcArtifacts).toBe(4);
    const payloads = await ctx.db.selectFrom('oidc_payloads').select('id').orderBy('id').execute();
    expect(payloads.map((r) => r.id)).toEqual(['live-token', 'no-expiry', 'recently-expired-code']);
    const logins = await ctx.db.selectFrom('oidc_logins').select('grant_id').execute();
    expect(logins.map((r) => r.grant_id)).toEqual(['live-grant']);
  });
});
