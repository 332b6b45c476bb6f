// The account behind a grant: the code exchange right after the sign-in issues the claims the sign-in proved
// (no second chain read); later, or for any other token (userinfo's access token, a refresh token), the claims are
// read live; a revoked Connect session has no account either way.
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import type { ConnectService } from '../connect/index';
import { createSessionService } from '../connect/index';
import { findAccountFor, loginStillValid, SIGNED_IN_CLAIMS_MS, type SignedInClaims } from './account';
import { writeSignIn } from './queries';

const ADDRESS = 'AL1ceWa11et1111111111111111111111111111111';
const CLIENT = 'key_account_test';

describeEachDialect('oidc account', (ctx) => {
  async function signedIn(grantId: string, signedInAt: number) {
    const sessions = createSessionService({ db: ctx.db, ttlSeconds: 3600 });
    const { claims: session } = await sessions.issue(
      { audience: CLIENT, address: ADDRESS, handle: 'alice', source: 'owner' },
      signedInAt,
    );
    const proven: SignedInClaims = { handle: 'alice', source: 'owner', verified: ['github'] };
    await writeSignIn(ctx.db, {
      payloads: [],
      login: {
        grant_id: grantId,
        session_jti: session.jti,
        client_id: CLIENT,
        address: ADDRESS,
        amr: 'sigil-signature',
        expires_at: session.expiresAt * 1000,
        claims: JSON.stringify(proven),
      },
    });
    const reads: string[] = [];
    const connect = {
      readSession: async (claims: { jti: string }) => {
        reads.push(claims.jti);
        return { address: ADDRESS, handle: 'alice', source: 'owner', verified: ['x'] };
      },
    } as unknown as ConnectService;
    return { sessions, session, connect, reads };
  }

  it('a code exchanged within the bound gets the claims the sign-in proved, without a chain read', async () => {
    const at = 1_900_000_000_000;
    const { connect, reads } = await signedIn('grant-fresh', at);
    const deps = { db: ctx.db, connect, now: () => at + SIGNED_IN_CLAIMS_MS };
    const account = await findAccountFor(deps, ADDRESS, { kind: 'AuthorizationCode', grantId: 'grant-fresh' } as never);
    expect(await account!.claims('id_token', 'openid', {}, [])).toStrictEqual({
      sub: ADDRESS,
      preferred_username: 'alice',
      wallet: ADDRESS,
      sigil_source: 'owner',
      sigil_verified: ['github'],
    });
    expect(reads).toStrictEqual([]);
  });

  it('later, and for an access or refresh token, the claims are read live', async () => {
    const at = 1_900_000_000_000;
    const { connect, reads, session } = await signedIn('grant-live', at);
    const late = { db: ctx.db, connect, now: () => at + SIGNED_IN_CLAIMS_MS + 1 };
    const code = await findAccountFor(late, ADDRESS, { kind: 'AuthorizationCode', grantId: 'grant-live' } as never);
    expect(await code!.claims('id_token', 'openid', {}, [])).toMatchObject({ sigil_verified: ['x'] });
    const soon = { db: ctx.db, connect, now: () => at + 1 };
    for (const kind of ['AccessToken', 'RefreshToken']) {
      const account = await findAccountFor(soon, ADDRESS, { kind, grantId: 'grant-live' } as never);
      expect(await account!.claims('userinfo', 'openid', {}, [])).toMatchObject({ sigil_verified: ['x'] });
    }
    expect(reads).toStrictEqual([session.jti, session.jti, session.jti]);
  });

  it('a revoked Connect session has no account and no valid login, even within the bound', async () => {
    const at = 1_900_000_000_000;
    const { sessions, session, connect, reads } = await signedIn('grant-revoked', at);
    const deps = { db: ctx.db, connect, now: () => at + 1 };
    expect(await loginStillValid(deps, 'grant-revoked', CLIENT, ADDRESS)).toBe(true);
    expect(await loginStillValid(deps, 'grant-revoked', 'key_other', ADDRESS)).toBe(false);
    await sessions.revoke(session.jti, at);
    const token = { kind: 'AuthorizationCode', grantId: 'grant-revoked' } as never;
    expect(await findAccountFor(deps, ADDRESS, token)).toBeUndefined();
    expect(await loginStillValid(deps, 'grant-revoked', CLIENT, ADDRESS)).toBe(false);
    expect(reads).toStrictEqual([]);
  });
});
