// The key step of a keyed request: on Postgres one statement (key lookup + both windows counted or refused + the
// refusal's usage), on SQLite the lookup then the limiter's upsert in one group-committed transaction on the native
// connection. Same answers on both; exact under concurrency; the number of statements per request counted, not
// assumed.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { setUsage } from '@sigil/test/support/ratelimit-usage';
import { createDatabase } from '../../platform/db/index';
import { createLogger } from '../../platform/log';
import { readUsage } from '../ratelimit/index';
import { createKeyGate } from './gate';
import { admitKeyRequest, createKey, createKeysService, revokeKey } from './service';

const NOW = Date.UTC(2030, 0, 15, 12, 30, 20, 250);
const MINUTE_RESET = Date.UTC(2030, 0, 15, 12, 31);
const DAY_RESET = Date.UTC(2030, 0, 16);
const account = () => base58.encode(randomBytes(32));
const log = createLogger({ logLevel: 'silent' });

describeEachDialect('the keyed request key step', (ctx) => {
  const admit = (secret: string, cost: number, now = NOW) => admitKeyRequest(ctx.db, secret, cost, now);

  it('counts the request against both windows and answers what is left', async () => {
    const { key, secret } = await createKey(ctx.db, { account: account() });
    const first = await admit(secret, 1);
    expect(first?.key).toEqual(key);
    expect(first?.result).toStrictEqual({
      passed: true,
      minute: { limit: 300, remaining: 299, reset: MINUTE_RESET },
      day: { limit: 15_000, remaining: 14_999, reset: DAY_RESET },
    });
    expect((await admit(secret, 10))?.result.minute.remaining).toBe(289);
    expect((await readUsage(ctx.db, [key.id], NOW)).get(key.id)).toStrictEqual({ minute: 11, day: 11 });
  });

  it('unknown, malformed and revoked secrets: null, and nothing counted', async () => {
    const owner = account();
    const { key, secret } = await createKey(ctx.db, { account: owner });
    await revokeKey(ctx.db, owner, key.id, NOW);
    expect(await admit(secret, 1)).toBeNull();
    expect(await admit(`${secret.slice(0, -4)}AAAA`, 1)).toBeNull();
    expect(await admit('not a secret', 1)).toBeNull();
    expect((await readUsage(ctx.db, [key.id], NOW)).get(key.id)).toBeUndefined();
  });

  it('refuses with the usage, the window and Retry-After; a refusal counts nothing', async () => {
    const { key, secret } = await createKey(ctx.db, { account: account() });
    await setUsage(ctx.db, key.id, { minute: 300, day: 300 }, NOW);
    expect((await admit(secret, 1))?.result).toStrictEqual({
      passed: false,
      minute: { limit: 300, remaining: 0, reset: MINUTE_RESET },
      day: { limit: 15_000, remaining: 14_700, reset: DAY_RESET },
      deniedBy: 'minute',
      retryAfterSeconds: 40,
    });
    await setUsage(ctx.db, key.id, { minute: 0, day: 14_999 }, NOW);
    expect((await admit(secret, 2))?.result).toMatchObject({
      passed: false,
      deniedBy: 'day',
      retryAfterSeconds: 41_380,
    });
    // A cost no window could ever admit (free: 300 a minute) is refused by that window.
    expect((await admit(secret, 301))?.result).toMatchObject({ passed: false, deniedBy: 'minute' });
    expect((await readUsage(ctx.db, [key.id], NOW)).get(key.id)).toStrictEqual({ minute: 0, day: 14_999 });
    // The next minute starts from zero; the day carries on.
    expect((await admit(secret, 1, NOW + 60_000))?.result).toMatchObject({
      passed: true,
      minute: { remaining: 299 },
      day: { remaining: 0 },
    });
  });

  it('admits exactly the minute limit out of 3× as many concurrent requests (free: 300 of 900)', async () => {
    const { key, secret } = await createKey(ctx.db, { account: account() });
    const results = await Promise.all(Array.from({ length: 900 }, () => admit(secret, 1)));
    const passed = results.filter((r) => r?.result.passed);
    expect(passed).toHaveLength(300);
    expect(passed.map((r) => r!.result.minute.remaining).sort((a, b) => a - b)).toStrictEqual(
      Array.from({ length: 300 }, (_, i) => i),
    );
    expect((await readUsage(ctx.db, [key.id], NOW)).get(key.id)).toStrictEqual({ minute: 300, day: 300 });
  });

  it('statements per keyed request, counted: 1 on Postgres, 2 on SQLite (admitted or refused)', async () => {
    const statements: string[] = [];
    const counted = createDatabase({
      ...(ctx.dialect === 'postgres' ? { url: ctx.url } : { sqliteFile: ctx.database.sqliteFile }),
      onQuery: (event) => void statements.push(event.query.sql),
    });
    try {
      const { key, secret } = await createKey(ctx.db, { account: account() });
      const keys = createKeysService({ db: counted.db });
      const gate = createKeyGate({ keys });
      // Marked used just now, so the throttled last-used write does not run: the request's own statements only.
      await keys.touch({ id: key.id, last_used_at: null });
      statements.length = 0;
      expect(await gate.admit(secret, 1, log)).toMatchObject({ key: { id: key.id } });
      expect(statements).toHaveLength(ctx.dialect === 'postgres' ? 1 : 2);
      await setUsage(ctx.db, key.id, { minute: 300, day: 300 }, Date.now());
      statements.length = 0;
      expect(await gate.admit(secret, 1, log)).toMatchObject({ denied: { window: expect.any(String) } });
      // Refused on SQLite: the lookup, the upsert that found no room, the usage read for the headers.
      expect(statements).toHaveLength(ctx.dialect === 'postgres' ? 1 : 3);
    } finally {
      await counted.close();
    }
  });
});
