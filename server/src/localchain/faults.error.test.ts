// Fault injection, in-process and over the loopback control route: unreachable, slow, JSON-RPC errors,
// HTTP 500, malformed account data.
import { getBase64Encoder } from '@solana/kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalChain, type LocalChain } from './index';

let chain: LocalChain;
let alice: string;
let aliceHandle: string;

beforeAll(async () => {
  chain = await startLocalChain({ autoAdvance: false });
  alice = chain.scenario!.wallets.alice!.address;
  aliceHandle = chain.scenario!.handles.alice!.account;
});
afterEach(() => chain.faults.clear());
afterAll(() => chain.close());

const rpc = (method: string, params: unknown[] = []) =>
  fetch(chain.url, { method: 'POST', body: JSON.stringify({ jsonrpc: '2.0', id: 7, method, params }) });
const control = (method: string, body?: unknown) =>
  fetch(`${chain.url}/_control/faults`, { method, body: body === undefined ? undefined : JSON.stringify(body) });

describe('in-process faults', () => {
  it('unreachable: connections are dropped without an answer; clearing restores service', async () => {
    chain.faults.set({ unreachable: true });
    await expect(chain.rpc.getSlot().send()).rejects.toThrow();
    await expect(rpc('getHealth')).rejects.toThrow(/fetch failed/);
    chain.faults.clear();
    expect(await chain.rpc.getHealth().send()).toBe('ok');
  });

  it('slow: every answer is delayed by delayMs (only for the listed methods when given)', async () => {
    chain.faults.set({ delayMs: 250, methods: ['getAccountInfo'] });
    let started = performance.now();
    await chain.rpc.getSlot().send();
    expect(performance.now() - started).toBeLessThan(200);
    started = performance.now();
    await chain.rpc.getAccountInfo(aliceHandle as never, { encoding: 'base64' }).send();
    expect(performance.now() - started).toBeGreaterThanOrEqual(240);
  });

  it('rpcError: a JSON-RPC error object for every call', async () => {
    chain.faults.set({ rpcError: { code: -32005, message: 'Node is behind by 42 slots' } });
    expect(await (await rpc('getSlot')).json()).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32005, message: 'Node is behind by 42 slots' },
    });
    await expect(chain.rpc.getSlot().send()).rejects.toThrow(/behind/);
  });

  it('httpStatus: HTTP 500 with a non-JSON body', async () => {
    chain.faults.set({ httpStatus: 500 });
    const res = await rpc('getSlot');
    expect(res.status).toBe(500);
    expect(await res.text()).toBe('injected HTTP 500');
    await expect(chain.rpc.getSlot().send()).rejects.toThrow();
  });

  it('malformedAccounts: the listed accounts come back as 0xff garbage in every account method', async () => {
    chain.faults.set({ malformedAccounts: [aliceHandle] });
    const info = await chain.rpc.getAccountInfo(aliceHandle as never, { encoding: 'base64' }).send();
    const bytes = getBase64Encoder().encode(info.value!.data[0]);
    expect(bytes.length).toBe(Number(info.value!.space));
    expect(bytes.every((b) => b === 0xff)).toBe(true);
    const multi = await chain.rpc.getMultipleAccounts([aliceHandle as never], { encoding: 'base64' }).send();
    expect(
      getBase64Encoder()
        .encode(multi.value[0]!.data[0])
        .every((b) => b === 0xff),
    ).toBe(true);
    const program = await chain.rpc.getProgramAccounts(chain.programId, { encoding: 'base64' }).send();
    const entry = program.find((a) => a.pubkey === aliceHandle)!;
    expect(
      getBase64Encoder()
        .encode(entry.account.data[0])
        .every((b) => b === 0xff),
    ).toBe(true);
    // Other accounts are untouched.
    const bob = program.find((a) => a.pubkey === chain.scenario!.handles.bob!.account)!;
    expect(getBase64Encoder().encode(bob.account.data[0])[0]).not.toBe(0xff);
  });
});

describe('control route (out-of-process tests)', () => {
  it('POST replaces, PATCH merges, GET reads, DELETE clears', async () => {
    expect(await (await control('POST', { httpStatus: 503 })).json()).toEqual({ httpStatus: 503 });
    expect((await rpc('getSlot')).status).toBe(503);
    expect(await (await control('PATCH', { malformedAccounts: [alice] })).json()).toEqual({
      httpStatus: 503,
      malformedAccounts: [alice],
    });
    expect(await (await control('GET')).json()).toEqual({ httpStatus: 503, malformedAccounts: [alice] });
    expect(await (await control('DELETE')).json()).toEqual({});
    expect((await rpc('getSlot')).status).toBe(200);
  });

  it('the control route keeps working while the RPC is unreachable', async () => {
    await control('POST', { unreachable: true });
    await expect(rpc('getSlot')).rejects.toThrow();
    expect((await control('DELETE')).status).toBe(200);
    expect((await rpc('getSlot')).status).toBe(200);
  });

  it('rejects an invalid fault config with 400', async () => {
    const res = await control('POST', { delayMs: -5 });
    expect(res.status).toBe(400);
    expect((await control('POST', { surprise: true })).status).toBe(400);
    expect(chain.faults.get()).toEqual({});
  });

  it('POST /_control/advance moves slots', async () => {
    const before = chain.slot();
    const res = await fetch(`${chain.url}/_control/advance`, { method: 'POST', body: JSON.stringify({ slots: 3 }) });
    expect(await res.json()).toEqual({ slot: Number(before + 3n) });
  });
});
