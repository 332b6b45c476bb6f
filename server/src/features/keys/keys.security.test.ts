import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { expect, it } from 'vitest';
import { ApiError } from '@sigil/contract/errors';
import { MAX_ACTIVE_KEYS_PER_ACCOUNT } from '@sigil/contract/keys';
import { createDatabase } from '../../platform/db/index';
import { describeEachDialect } from '@sigil/test/support/db';
import { authenticateKey, createKey, ensurePortalKey, listKeys, revokeKey } from './service';
import { generateSecret, hashSecret } from './secret';

const wallet = () => base58.encode(randomBytes(32));
const T = Date.UTC(2030, 0, 15, 12, 30, 20, 250);

it('secrets: sigil_sk_ + base58 of 32 random bytes (256 bits), all distinct', () => {
  const seen = new Set<string>();
  for (let i = 0; i < 2000; i++) {
    const secret = generateSecret();
    expect(secret).toMatch(/^sigil_sk_[1-9A-HJ-NP-Za-km-z]+$/);
    expect(base58.decode(secret.slice('sigil_sk_'.length))).toHaveLength(32);
    seen.add(secret);
  }
  expect(seen.size).toBe(2000);
});

it('the stored hash is the hex SHA-256 of the whole secret (literal vector)', () => {
  // printf %s 'sigil_sk_test' | sha256sum
  expect(hashSecret('sigil_sk_test')).toBe('066bd5cae872e1b5156769e33d89e18f2d7b9293434f2edcbd1fd64e1112eb36');
});

describeEachDialect('api keys: security', (ctx) => {
  it('never stores the secret: no column of the row contains it or its random part', async () => {
    const { key, secret } = await createKey(ctx.db, { account: wallet(), name: 'scan me' }, T);
    const row = await ctx.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    const randomPart = secret.slice('sigil_sk_'.length);
    for (const [column, value] of Object.entries(row)) {
      const text = String(value);
      expect(text.includes(randomPart), `column ${column}`).toBe(false);
      expect(text.includes(randomPart.slice(8)), `column ${column} (tail)`).toBe(false);
    }
    expect(row.secret_hash).toBe(hashSecret(secret));
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);
    // The display prefix reveals 4 random characters, no more.
    expect(row.secret_prefix).toBe(secret.slice(0, 13));
  });

  it('another account cannot revoke (or see) a key: it is "not found" and the key keeps working', async () => {
    const owner = wallet();
    const { key, secret } = await createKey(ctx.db, { account: owner }, T);
    expect(await revokeKey(ctx.db, wallet(), key.id, T)).toBeNull();
    expect(await listKeys(ctx.db, wallet())).toStrictEqual([]);
    expect((await authenticateKey(ctx.db, secret))!.revoked_at).toBeNull();
  });

  it('a revoked key fails at once, also through another connection pool (another replica)', async () => {
    const owner = wallet();
    const { key, secret } = await createKey(ctx.db, { account: owner }, T);
    const replica = createDatabase({ url: ctx.url });
    try {
      expect((await authenticateKey(replica.db, secret))!.id).toBe(key.id);
      await revokeKey(ctx.db, owner, key.id, T + 1);
      expect(await authenticateKey(replica.db, secret)).toBeNull();
      expect(await authenticateKey(ctx.db, secret)).toBeNull();
    } finally {
      await replica.close();
    }
  });

  it('refuses unknown, malformed and near-miss secrets', async () => {
    const { secret } = await createKey(ctx.db, { account: wallet() }, T);
    const flipped = secret.slice(0, -1) + (secret.endsWith('a') ? 'b' : 'a');
    for (const candidate of [
      '',
      'sigil_sk_',
      generateSecret(),
      flipped,
      secret + ' ',
      ' ' + secret,
      secret.toUpperCase(),
      secret.slice('sigil_sk_'.length), // the random part alone
      'sk_' + secret.slice('sigil_sk_'.length),
      hashSecret(secret), // the stored hash is not a credential
      'sigil_sk_' + 'x'.repeat(10_000),
    ]) {
      expect(await authenticateKey(ctx.db, candidate), JSON.stringify(candidate.slice(0, 40))).toBeNull();
    }
  });

  it('caps active keys per account, exactly, even when creations race', async () => {
    const account = wallet();
    const attempts = await Promise.allSettled(
      Array.from({ length: 25 }, (_, i) => createKey(ctx.db, { account }, T + i)),
    );
    const created = attempts.filter((a) => a.status === 'fulfilled');
    const refused = attempts.filter((a): a is PromiseRejectedResult => a.status === 'rejected');
    expect(created).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    expect(refused).toHaveLength(25 - MAX_ACTIVE_KEYS_PER_ACCOUNT);
    for (const r of refused) {
      expect(r.reason).toBeInstanceOf(ApiError);
      expect((r.reason as ApiError).toBody()).toStrictEqual({
        code: 'LIMIT_REACHED',
        message: 'an account may hold at most 10 active keys; revoke one first',
      });
      expect((r.reason as ApiError).status).toBe(409);
    }
    expect(await listKeys(ctx.db, account)).toHaveLength(MAX_ACTIVE_KEYS_PER_ACCOUNT);
    // Revoking one frees a slot.
    const [first] = await listKeys(ctx.db, account);
    await revokeKey(ctx.db, account, first.id, T);
    await expect(createKey(ctx.db, { account }, T)).resolves.toBeDefined();
  });

  it('only wallet addresses own keys', async () => {
    await expect(createKey(ctx.db, { account: 'portal.sigil.local' })).rejects.toThrow(
      'account must be a wallet address',
    );
  });

  it('the portal key belongs to no wallet: no wallet lists or revokes it', async () => {
    const domain = `p${randomBytes(3).toString('hex')}.sigil.local`;
    const { generatedSecret } = await ensurePortalKey(ctx.db, { domain }, T);
    expect(await revokeKey(ctx.db, wallet(), domain, T)).toBeNull();
    expect((await authenticateKey(ctx.db, generatedSecret!))!.revoked_at).toBeNull();
  });

  it('refuses a weak or malformed SIGIL_PORTAL_KEY and a bad domain, storing nothing', async () => {
    const domain = `w${randomBytes(3).toString('hex')}.sigil.local`;
    await expect(ensurePortalKey(ctx.db, { domain, secret: 'hunter2' })).rejects.toThrow(
      'SIGIL_PORTAL_KEY must start with sigil_sk_ and be at most 128 characters',
    );
    await expect(
      ensurePortalKey(ctx.db, { domain, secret: 'sigil_sk_' + base58.encode(randomBytes(15)) }),
    ).rejects.toThrow('SIGIL_PORTAL_KEY must carry at least 16 random bytes (base58)');
    await expect(
      ensurePortalKey(ctx.db, { domain, secret: 'sigil_sk_0OIl' + base58.encode(randomBytes(20)) }),
    ).rejects.toThrow('SIGIL_PORTAL_KEY must be sigil_sk_ followed by base58');
    await expect(ensurePortalKey(ctx.db, { domain: 'https://portal.example' })).rejects.toThrow(
      'SIGIL_PORTAL_DOMAIN must be a host name',
    );
    expect(await ctx.db.selectFrom('api_keys').select('id').where('id', '=', domain).execute()).toStrictEqual([]);
  });
});
