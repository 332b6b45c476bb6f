// The keyed reverse over real HTTP on the demo scenario: every failed rule from a real chain state, forwardMatch,
// the pointer and slot, the batch (order, duplicates, bad items, cost per address, 101 addresses), chain failures,
// and the shared auth suite. RPC calls per batch are counted on a reader of the same chain.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { base58 } from '@scure/base';
import { createKey } from '../../server/src/features/keys/service';
import { createReverseService } from '../../server/src/features/reverse/service';
import { findPrimaryPointerPda } from '../../server/src/platform/chain/registry';
import { apiKeyAuthSuite } from '../support/auth-suite';
import { countingReader } from '../support/localchain-wallets';
import { useScenarioApp, withFaults } from '../support/scenario-app';

const t = useScenarioApp();
const { wallet } = t;
const get = (address: string) => t.app.call('GET', `/v1/reverse/${address}`, { key: t.app.key.secret });
const batch = (addresses: unknown, key = t.app.key.secret) =>
  t.app.call('POST', '/v1/reverse/batch', { key, body: { addresses } });
const show = (res: { status: number; text: string }) => `${res.status} ${res.text}`;

describe('GET /v1/reverse/{address}', () => {
  it('a trusted primary: the handle, forwardMatch, the pointer as read and the slot', async () => {
    const res = await get(wallet('alice'));
    expect(res.status, show(res)).toBe(200);
    const { pointer, slot, ...rest } = res.body;
    expect(rest).toStrictEqual({
      input: wallet('alice'),
      address: wallet('alice'),
      handle: 'alice',
      failedRule: null,
      pointedHandle: 'alice',
      forwardMatch: true,
      authority: wallet('alice'),
    });
    expect(pointer.handleAccount).toBe(t.scenario.handles.alice!.account);
    expect(Object.keys(pointer).sort()).toEqual(['account', 'handleAccount', 'setAt', 'setSlot']);
    expect(Number.isSafeInteger(slot) && slot >= pointer.setSlot).toBe(true);
  });

  // Each row: the scenario wallet, then [handle, failedRule, pointedHandle, forwardMatch, authority].
  const rows: [string, string, [string | null, string | null, string | null, boolean, string | null]][] = [
    ['tokenized NFT holder (trusted)', 'dave', ['vault', null, 'vault', true, 'dave']],
    ['tokenized, recorded owner whose NFT moved', 'carol', [null, 'authority-lost', 'vault', false, 'dave']],
    ['set under the previous registration', 'erin', [null, 'pointer-older-than-registration', 'phoenix', true, 'erin']],
    ['transferred away', 'grace', [null, 'authority-lost', 'drift', false, 'heidi']],
    ['handle released', 'judy', [null, 'handle-missing', null, false, null]],
    ['no pointer at all', 'heidi', [null, 'no-pointer', null, false, null]],
  ];
  for (const [what, name, [handle, failedRule, pointedHandle, forwardMatch, authority]] of rows) {
    it(`${what}: ${name} → ${failedRule ?? handle}`, async () => {
      const res = await get(wallet(name));
      expect(res.status, show(res)).toBe(200);
      expect(res.body).toMatchObject({
        handle,
        failedRule,
        pointedHandle,
        forwardMatch,
        authority: authority && wallet(authority),
      });
      expect(res.body.pointer === null).toBe(failedRule === 'no-pointer');
    });
  }

  it('the scenario names a wallet for every failed rule', () => {
    expect(t.scenario.reverse).toMatchObject({
      primaryHandleReleased: wallet('judy'),
      primarySetBeforeRegistration: wallet('erin'),
      primaryLostAuthority: wallet('grace'),
      noPrimary: wallet('heidi'),
    });
  });

  it('not a base58 address → 400 INVALID_WALLET', async () => {
    const res = await get('not-an-address');
    expect(res.status, show(res)).toBe(400);
    expect(res.body).toStrictEqual({
      code: 'INVALID_WALLET',
      message: '"not-an-address" is not a base58 address (32 bytes)',
    });
  });

  it('chain unreachable → 502 RPC_ERROR, never a made-up answer', async () => {
    const res = await withFaults(t.app.chain, () => get(wallet('alice')));
    expect(res.status, show(res)).toBe(502);
    expect(res.body).toStrictEqual({ code: 'RPC_ERROR', message: 'the chain RPC is unreachable' });
  });

  it('answers once the chain is back', async () => {
    expect((await get(wallet('alice'))).body.handle).toBe('alice');
  });

  apiKeyAuthSuite(
    'GET /v1/reverse/{address}',
    () => t.app,
    (a, auth) => a.call('GET', `/v1/reverse/${wallet('alice')}`, auth),
  );
});

describe('POST /v1/reverse/batch', () => {
  it('one item per input, in order; duplicates answered alike; a bad address is an item', async () => {
    const inputs = [wallet('heidi'), wallet('alice'), 'nope', wallet('dave'), wallet('alice'), wallet('judy')];
    const res = await batch(inputs);
    expect(res.status, show(res)).toBe(200);
    const { results, slot } = res.body;
    expect(results.map((r: { input: string }) => r.input)).toEqual(inputs);
    expect(
      results.map((r: { ok: boolean; result?: { handle: string | null; failedRule: string | null } }) =>
        r.ok ? (r.result!.handle ?? r.result!.failedRule) : 'error',
      ),
    ).toEqual(['no-pointer', 'alice', 'error', 'vault', 'alice', 'handle-missing']);
    expect(results[2]).toStrictEqual({
      input: 'nope',
      ok: false,
      error: { status: 400, code: 'INVALID_WALLET', message: '"nope" is not a base58 address (32 bytes)' },
    });
    expect(results[1]).toStrictEqual(results[4]);
    // Every item was proven at the batch's slot.
    expect(
      results.filter((r: { ok: boolean }) => r.ok).every((r: { result: { slot: number } }) => r.result.slot === slot),
    ).toBe(true);
  });

  it('costs one rate-limit unit per address (duplicates included)', async () => {
    const { secret } = await createKey(t.app.database.db, { account: base58.encode(randomBytes(32)) });
    const first = await batch([wallet('alice')], secret);
    const before = Number(first.headers.get('x-ratelimit-daily-remaining'));
    const res = await batch([wallet('alice'), wallet('alice'), wallet('bob'), wallet('carol')], secret);
    expect(res.status, show(res)).toBe(200);
    expect(Number(res.headers.get('x-ratelimit-daily-remaining'))).toBe(before - 4);
  });

  it('no addresses, 101 addresses, or not a list → 400 BAD_REQUEST', async () => {
    for (const addresses of [[], Array.from({ length: 101 }, () => wallet('alice')), 'alice']) {
      const res = await batch(addresses);
      expect(res.status, show(res)).toBe(400);
      expect(res.body.code).toBe('BAD_REQUEST');
    }
  });

  it('100 addresses of plain handles take two RPC calls; each tokenized handle adds its holder lookup', async () => {
    const { reader, calls } = countingReader(t.app.chain);
    const service = createReverseService({ chain: reader });
    const plain = ['alice', 'bob', 'erin', 'grace', 'heidi', 'judy', 'ivan'].map(wallet);
    const hundred = Array.from({ length: 100 }, (_, i) =>
      i < plain.length ? plain[i]! : base58.encode(randomBytes(32)),
    );
    const result = await service.reverseBatch(hundred);
    expect(result.results).toHaveLength(100);
    expect(result.results[0]!.result!.handle).toBe('alice');
    expect(calls).toEqual(['getMultipleAccounts', 'getMultipleAccounts']);

    calls.length = 0;
    await service.reverseBatch([wallet('dave'), wallet('carol'), wallet('alice')]); // both point at vault (tokenized)
    expect(calls.sort()).toEqual([
      'getAccountInfo',
      'getMultipleAccounts',
      'getMultipleAccounts',
      'getTokenLargestAccounts',
    ]);
  });

  it('an account that does not decode is that item’s 502 RPC_ERROR; the other items still answer', async () => {
    const [pointer] = await findPrimaryPointerPda(t.app.chain.programId, wallet('alice') as never);
    t.app.chain.faults.set({ malformedAccounts: [pointer] });
    try {
      const res = await batch([wallet('alice'), wallet('bob')]);
      expect(res.status, show(res)).toBe(200);
      expect(res.body.results[0]).toStrictEqual({
        input: wallet('alice'),
        ok: false,
        error: { status: 502, code: 'RPC_ERROR', message: 'the chain returned an account that does not decode' },
      });
      expect(res.body.results[1].result.handle).toBe('bob');
      const single = await get(wallet('alice'));
      expect([single.status, single.body.code]).toEqual([502, 'RPC_ERROR']);
    } finally {
      t.app.chain.faults.clear();
    }
  });

  it('chain unreachable → 502 RPC_ERROR for the batch', async () => {
    const res = await withFaults(t.app.chain, () => batch([wallet('alice')]));
    expect(res.status, show(res)).toBe(502);
    expect(res.body.code).toBe('RPC_ERROR');
  });

  apiKeyAuthSuite(
    'POST /v1/reverse/batch',
    () => t.app,
    (a, auth) => a.call('POST', '/v1/reverse/batch', { ...auth, body: { addresses: [wallet('alice')] } }),
  );
});
