import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { expect, it } from 'vitest';
import { KEY_ID_PATTERN } from '@sigil/contract/keys';
import { describeEachDialect } from '@sigil/test/support/db';
import { createRateLimiter } from '../ratelimit/index';
import {
  accountUsage,
  authenticateKey,
  createKey,
  ensurePortalKey,
  listKeys,
  listKeysWithUsage,
  revokeKey,
  setKeyTier,
  touchLastUsed,
} from './service';

const wallet = () => base58.encode(randomBytes(32));
const T = Date.UTC(2030, 0, 15, 12, 30, 20, 250);

describeEachDialect('api keys', (ctx) => {
  it('creates a free key, shows it to its owner and authenticates its secret', async () => {
    const account = wallet();
    const { key, secret } = await createKey(ctx.db, { account, name: 'backend' }, T);
    expect(key.id).toMatch(KEY_ID_PATTERN);
    expect(key).toStrictEqual({
      id: key.id,
      account,
      name: 'backend',
      tier: 'free',
      prefix: secret.slice(0, 13),
      created_at: T,
      revoked_at: null,
      last_used_at: null,
    });
    expect(key.prefix.startsWith('sigil_sk_')).toBe(true);
    expect(await listKeys(ctx.db, account)).toStrictEqual([key]);
    expect(await authenticateKey(ctx.db, secret)).toStrictEqual(key);
  });

  it('lists newest first, revoked keys included', async () => {
    const account = wallet();
    const first = await createKey(ctx.db, { account }, T);
    const second = await createKey(ctx.db, { account, name: 'second' }, T + 1000);
    await revokeKey(ctx.db, account, first.key.id, T + 2000);
    const listed = await listKeys(ctx.db, account);
    expect(listed.map((k) => [k.id, k.name, k.revoked_at])).toStrictEqual([
      [second.key.id, 'second', null],
      [first.key.id, null, T + 2000],
    ]);
  });

  it('revokes an own key idempotently, keeping the first revocation time', async () => {
    const account = wallet();
    const { key, secret } = await createKey(ctx.db, { account }, T);
    const revoked = await revokeKey(ctx.db, account, key.id, T + 5);
    expect(revoked).toStrictEqual({ ...key, revoked_at: T + 5 });
    expect(await revokeKey(ctx.db, account, key.id, T + 99)).toStrictEqual({ ...key, revoked_at: T + 5 });
    expect(await authenticateKey(ctx.db, secret)).toBeNull();
    expect(await revokeKey(ctx.db, account, 'key_doesnotexist', T)).toBeNull();
  });

  it('writes last_used_at at most once per 10 s', async () => {
    const { key, secret } = await createKey(ctx.db, { account: wallet() }, T);
    expect(await touchLastUsed(ctx.db, key, T + 1)).toBe(true);
    const seen = (await authenticateKey(ctx.db, secret))!;
    expect(seen.last_used_at).toBe(T + 1);
    expect(await touchLastUsed(ctx.db, seen, T + 9_000)).toBe(false);
    // A stale in-memory copy does not defeat it either: the UPDATE's own condition refuses.
    expect(await touchLastUsed(ctx.db, key, T + 9_000)).toBe(false);
    expect(await touchLastUsed(ctx.db, seen, T + 10_001)).toBe(true);
    expect((await authenticateKey(ctx.db, secret))!.last_used_at).toBe(T + 10_001);
  });

  it('lets an operator set the partner tier', async () => {
    const account = wallet();
    const { key, secret } = await createKey(ctx.db, { account }, T);
    expect(await setKeyTier(ctx.db, key.id, 'partner')).toBe(true);
    expect((await authenticateKey(ctx.db, secret))!.tier).toBe('partner');
    expect(await setKeyTier(ctx.db, 'key_unknown', 'partner')).toBe(false);
  });

  it('shows per-key usage in the list and in the usage summary', async () => {
    const account = wallet();
    const a = await createKey(ctx.db, { account, name: 'a' }, T);
    const b = await createKey(ctx.db, { account, name: 'b' }, T + 1);
    await setKeyTier(ctx.db, b.key.id, 'partner');
    const limiter = createRateLimiter(ctx.db);
    await limiter.limit(a.key.id, 'free', 3, T - 60_000); // the previous minute, same day
    await limiter.limit(a.key.id, 'free', 2, T);
    await limiter.limit(b.key.id, 'partner', 10, T);

    const list = await listKeysWithUsage(ctx.db, account, T);
    expect(list.keys.map((k) => [k.name, k.tier, k.usage])).toStrictEqual([
      ['b', 'partner', { minute: 10, day: 10 }],
      ['a', 'free', { minute: 2, day: 5 }],
    ]);
    expect(Object.keys(list.keys[0]).sort()).toStrictEqual([
      'created_at',
      'id',
      'last_used_at',
      'name',
      'prefix',
      'revoked_at',
      'tier',
      'usage',
    ]);

    expect(await accountUsage(ctx.db, account, T)).toStrictEqual({
      tier: 'partner',
      limits: { minute: 1000, day: 100000 },
      usage: { minute: 12, day: 15 },
      reset: { minute: Date.UTC(2030, 0, 15, 12, 31), day: Date.UTC(2030, 0, 16) },
      keys: [
        {
          id: b.key.id,
          name: 'b',
          tier: 'partner',
          revoked_at: null,
          limits: { minute: 1000, day: 100000 },
          usage: { minute: 10, day: 10 },
        },
        {
          id: a.key.id,
          name: 'a',
          tier: 'free',
          revoked_at: null,
          limits: { minute: 300, day: 15000 },
          usage: { minute: 2, day: 5 },
        },
      ],
    });
    // Revoking the partner key makes the account free again.
    await revokeKey(ctx.db, account, b.key.id, T);
    expect((await accountUsage(ctx.db, account, T)).tier).toBe('free');
    // A new account has nothing.
    expect(await accountUsage(ctx.db, wallet(), T)).toMatchObject({
      tier: 'free',
      limits: { minute: 300, day: 15000 },
      usage: { minute: 0, day: 0 },
      keys: [],
    });
  });

  it('portal key, local mode: generated and returned once, kept on later starts, replaced on rotate', async () => {
    const domain = `portal-${randomBytes(3).toString('hex')}.sigil.local`;
    const first = await ensurePortalKey(ctx.db, { domain }, T);
    expect(first.generatedSecret).toMatch(/^sigil_sk_[1-9A-HJ-NP-Za-km-z]{40,44}$/);
    expect(first.key).toStrictEqual({
      id: domain,
      account: domain,
      name: 'portal',
      tier: 'partner',
      prefix: first.generatedSecret!.slice(0, 13),
      created_at: T,
      revoked_at: null,
      last_used_at: null,
    });
    expect(await authenticateKey(ctx.db, first.generatedSecret!)).toStrictEqual(first.key);

    const again = await ensurePortalKey(ctx.db, { domain }, T + 1000);
    expect(again).toStrictEqual({ key: first.key, generatedSecret: null });
    expect(await authenticateKey(ctx.db, first.generatedSecret!)).not.toBeNull();

    const rotated = await ensurePortalKey(ctx.db, { domain, rotate: true }, T + 2000);
    expect(rotated.generatedSecret).not.toBe(first.generatedSecret);
    expect(await authenticateKey(ctx.db, first.generatedSecret!)).toBeNull();
    expect((await authenticateKey(ctx.db, rotated.generatedSecret!))!.id).toBe(domain);
  });

  it('portal key from the environment: the configured secret works, changing it rotates, partner always', async () => {
    const domain = `Portal-${randomBytes(3).toString('hex')}.Sigil.Local`; // stored lower-cased
    const secretA = 'sigil_sk_' + base58.encode(randomBytes(32));
    const secretB = 'sigil_sk_' + base58.encode(randomBytes(24));
    const a = await ensurePortalKey(ctx.db, { domain, secret: secretA }, T);
    expect(a.generatedSecret).toBeNull();
    expect(a.key.id).toBe(domain.toLowerCase());
    expect(a.key.tier).toBe('partner');
    expect((await authenticateKey(ctx.db, secretA))!.id).toBe(domain.toLowerCase());
    // Same secret on a second replica's start: nothing changes.
    expect((await ensurePortalKey(ctx.db, { domain, secret: secretA }, T + 1)).key).toStrictEqual(a.key);

    await ensurePortalKey(ctx.db, { domain, secret: secretB }, T + 2);
    expect(await authenticateKey(ctx.db, secretA)).toBeNull();
    expect((await authenticateKey(ctx.db, secretB))!.created_at).toBe(T);
  });
});
