// GET /v1/search/handles over real HTTP: the local chain's demo scenario plus a few handles registered here, one
// index pass, then prefix and substring search, the agent filter, pages that neither repeat nor skip, the 400s of
// bad input, `%` and `_` taken literally, and the key requirement.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { KeyPairSigner } from '@solana/kit';
import { registerHandle } from '@sigil/test/support/agent-registry';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { fundedWallet } from '@sigil/test/support/localchain-wallets';
import { SearchHandlesResponseSchema } from '@sigil/contract/search';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import { createChainReader } from '../../platform/chain/reader';
import { runHandleIndexPass } from './index';

let chain: LocalChain;
let app: KeyedApp;
let wallet: KeyPairSigner;
/** pg_00 … pg_11 and pgx1: thirteen names under the prefix `pg`. */
const PG = [...Array.from({ length: 12 }, (_, i) => `pg_${String(i).padStart(2, '0')}`), 'pgx1'];

beforeAll(async () => {
  chain = await startLocalChain({ scenario: true, autoAdvance: false });
  app = await startKeyedApp({ dialect: 'sqlite', chain });
  wallet = await fundedWallet(chain);
  for (const name of PG) await registerHandle(chain, wallet, name);
  await registerHandle(chain, wallet, 'robot_pg', 3);
  const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
  await runHandleIndexPass(app.database.db, { chain: reader });
}, 120_000);
afterAll(async () => {
  await app?.close();
  await chain?.close();
});

const search = async (query: string) => {
  const res = await app.call('GET', `/v1/search/handles?${query}`, { key: app.key.secret });
  return res;
};
const names = async (query: string) => {
  const res = await search(query);
  expect(res.status, res.text).toBe(200);
  expect(SearchHandlesResponseSchema.parse(res.body)).toEqual(res.body);
  return (res.body.items as { name: string }[]).map((i) => i.name);
};

describe('GET /v1/search/handles', () => {
  it('prefix (the default): names starting with q, in name order; q is normalized like a name', async () => {
    expect(await names('q=sat')).toEqual(['satoshi', 'satoshi.x1']);
    expect(await names('q=%40SAT&mode=prefix')).toEqual(['satoshi', 'satoshi.x1']);
    expect(await names('q=pg_0')).toEqual(PG.slice(0, 10));
    expect(await names('q=nobody')).toEqual([]);
  });

  it('an item carries the account, the owner, the agent flag and the registration slot', async () => {
    const res = await search('q=scout');
    const scout = chain.scenario!.handles.scout!;
    expect(res.body).toEqual({
      items: [
        {
          name: 'scout',
          account: scout.account,
          owner: chain.scenario!.wallets.ivan!.address,
          agent: true,
          registeredSlot: expect.any(Number),
        },
      ],
      nextCursor: null,
    });
  });

  it('substring: names containing q anywhere', async () => {
    expect(await names('q=out&mode=substring')).toEqual(['scout']);
    expect(await names('q=.x1&mode=substring')).toEqual(['satoshi.x1']);
    expect(await names('q=x1&mode=substring')).toEqual(['pgx1', 'satoshi.x1']);
  });

  it('agent=true keeps agent handles only', async () => {
    // The demo agents with an `o` in their name, and the agent registered here.
    const demoAgents = Object.keys(chain.scenario!.agents).filter((name) => name.includes('o'));
    expect(await names('q=o&mode=substring&agent=true')).toEqual([...demoAgents, 'robot_pg'].sort());
    expect(await names('q=s&agent=true')).toEqual(['scout']);
    expect(await names('q=s&agent=false')).toEqual(['satoshi', 'satoshi.x1', 'scout']);
  });

  it('% and _ in q match themselves, not any run or any one character', async () => {
    expect(await names('q=%25&mode=substring')).toEqual([]);
    expect(await names('q=%25')).toEqual([]);
    expect(await names('q=p%25&mode=substring')).toEqual([]);
    // `g_` would match `gx` as a LIKE wildcard: pgx1 must not come back.
    expect(await names('q=g_&mode=substring')).toEqual(PG.slice(0, 12));
    expect(await names('q=_&mode=substring')).toEqual([...PG.slice(0, 12), 'robot_pg']);
    expect(await names('q=%5C&mode=substring')).toEqual([]);
  });

  it('pages: the cursor continues where the last page ended, no duplicates, no gaps, null at the end', async () => {
    const all = await names('q=pg&limit=100');
    expect(all).toEqual(PG);
    const seen: string[] = [];
    let cursor: string | null = null;
    const sizes: number[] = [];
    do {
      const res = await search(`q=pg&limit=5${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      sizes.push(res.body.items.length);
      seen.push(...res.body.items.map((i: { name: string }) => i.name));
      cursor = res.body.nextCursor;
    } while (cursor);
    expect(sizes).toEqual([5, 5, 3]);
    expect(seen).toEqual(all);
    // A page that ends exactly at the last match says so: no empty extra page.
    const exact = await search('q=sat&limit=2');
    expect(exact.body.nextCursor).toBeNull();
  });

  it('limit defaults to 20 and is capped at 100', async () => {
    const res = await search('q=_&mode=substring&limit=1');
    expect(res.body.items).toHaveLength(1);
    expect(res.body.nextCursor).toEqual(expect.any(String));
    expect(await names('q=p&mode=substring')).toHaveLength(15); // pg_00…pg_11, pgx1, phoenix, robot_pg
  });

  it.each([
    ['no q', 'mode=prefix'],
    ['empty q', 'q='],
    ['q only an @', 'q=%40'],
    ['q over 32 characters', `q=${'a'.repeat(33)}`],
    ['q with a control character', 'q=a%0Ab'],
    ['unknown mode', 'q=a&mode=fuzzy'],
    ['agent not true/false', 'q=a&agent=yes'],
    ['limit 0', 'q=a&limit=0'],
    ['limit 101', 'q=a&limit=101'],
    ['limit not a number', 'q=a&limit=ten'],
    ['a cursor this search did not issue', 'q=a&cursor=bm90LWEtY3Vyc29y'],
    ['a cursor that is not base64url', 'q=a&cursor=***'],
  ])('%s → 400 BAD_REQUEST', async (_, query) => {
    const res = await search(query);
    expect(res.status, res.text).toBe(400);
    expect(res.body.code).toBe('BAD_REQUEST');
  });

  it('q of exactly 32 characters (or 32 after an @) is accepted', async () => {
    expect(await names(`q=${'a'.repeat(32)}`)).toEqual([]);
    expect(await names(`q=%40${'a'.repeat(32)}`)).toEqual([]);
  });

  it('no key → 401 API_KEY_REQUIRED; a wrong key → 401 INVALID_KEY', async () => {
    const none = await app.call('GET', '/v1/search/handles?q=a');
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('API_KEY_REQUIRED');
    const wrong = await app.call('GET', '/v1/search/handles?q=a', { key: 'sk_nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.code).toBe('INVALID_KEY');
  });
});
