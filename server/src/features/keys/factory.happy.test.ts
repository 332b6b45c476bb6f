// createKeysService binds the db: one call per verb, each checked against the module function it delegates to.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshDatabase, type FreshDatabase } from '@sigil/test/support/db';
import { createRateLimiter } from '../ratelimit/index';
import {
  accountUsage,
  createKeysService,
  getOwnKey,
  listKeys,
  listKeysWithUsage,
  setKeyTier,
  type KeysService,
} from './service';

const T = Date.UTC(2030, 0, 15, 12, 30, 20, 250);
const account = base58.encode(randomBytes(32));

let database: FreshDatabase;
let keys: KeysService;
beforeAll(async () => {
  database = await freshDatabase('sqlite');
  keys = createKeysService({ db: database.db });
});
afterAll(() => database?.drop());

it('every verb of createKeysService acts on its db as the module function of the same rule', async () => {
  const { key, secret } = await keys.create({ account, name: 'factory' }, T);
  expect(await listKeys(database.db, account)).toStrictEqual([key]);
  expect(await keys.authenticate(secret)).toStrictEqual(key);

  expect(await keys.touch(key, T + 1)).toBe(true);
  const touched = { ...key, last_used_at: T + 1 };
  expect(await getOwnKey(database.db, account, key.id)).toStrictEqual(touched);

  await createRateLimiter(database.db).limit(key.id, 'free', 2, T);
  expect(await keys.listWithUsage(account, T)).toStrictEqual(await listKeysWithUsage(database.db, account, T));
  expect((await keys.listWithUsage(account, T)).keys[0]!.usage).toStrictEqual({ minute: 2, day: 2 });
  expect(await keys.usage(account, T)).toStrictEqual(await accountUsage(database.db, account, T));

  expect(await setKeyTier(database.db, key.id, 'partner')).toBe(true);
  expect((await getOwnKey(database.db, account, key.id))!.tier).toBe('partner');

  expect(await keys.revoke(account, key.id, T + 2)).toStrictEqual({ ...touched, tier: 'partner', revoked_at: T + 2 });
  expect(await keys.authenticate(secret)).toBeNull();

  const portal = await keys.ensurePortalKey({ domain: 'portal.factory.test' }, T);
  expect(portal.key).toMatchObject({ id: 'portal.factory.test', account: 'portal.factory.test', tier: 'partner' });
  expect(await keys.authenticate(portal.generatedSecret!)).toStrictEqual(portal.key);
});
