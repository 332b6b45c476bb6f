// POST /gift/notify and GET /gift/{voucher}: every bad input has its own clear 4xx (public body `{error, input?}`),
// never a 500 — a malformed signature, an unknown transaction, one not finalized yet, a failed one, one that made no
// gift; a voucher address that is malformed or holds no gift; the RPC down → 502.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { chainNow, giveHandle, type Gift } from '@sigil/test/support/gift-world';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { signedTransaction } from '@sigil/test/support/localchain-wallets';
import { startLocalChain, type LocalChain } from '../../localchain/index';
import {
  getMarketInstruction,
  MARKET_PDAS,
  findHandlePda,
  getRegisterInstruction,
} from '../../platform/chain/registry';
import { exec, fundedWallet } from '@sigil/test/support/webhooks-world';

let chain: LocalChain;
let app: KeyedApp;
let gift: Gift;

beforeAll(async () => {
  // Slots advance only when the tests move them: a transaction can stay confirmed and not finalized.
  chain = await startLocalChain({ scenario: false, autoAdvance: false });
  await chain.advance(10); // past the finality lag: a new transaction is then confirmed before it is finalized
  app = await startKeyedApp({ dialect: 'sqlite', chain });
  gift = await giveHandle(chain, 'giftbad');
}, 120_000);
afterAll(async () => {
  await app?.close();
  await chain?.close();
});

const notify = (body: unknown) => app.call('POST', '/gift/notify', { body });
const expectError = async (res: Awaited<ReturnType<typeof notify>>, status: number, body: unknown) => {
  expect(res.status, res.text).toBe(status);
  expect(res.body).toEqual(body);
};

describe('POST /gift/notify: bad input', () => {
  it('no signature, a wrong type, an extra field, no body → 400 bad request', async () => {
    for (const body of [{}, { signature: 5 }, { signature: gift.signature, url: 'https://evil.example' }, ''])
      await expectError(await notify(body), 400, { error: 'bad request' });
  });

  it('not base58 of 64 bytes → 400 invalid transaction signature, naming the input', async () => {
    for (const signature of ['', 'abc', '0OIl', base58.encode(randomBytes(32)), base58.encode(randomBytes(65))])
      await expectError(await notify({ signature }), 400, { error: 'invalid transaction signature', input: signature });
  });

  it('a well-formed signature the chain does not know → 404 transaction not found', async () => {
    const signature = base58.encode(randomBytes(64));
    await expectError(await notify({ signature }), 404, { error: 'transaction not found', input: signature });
  });

  it('a transaction that made no gift (a registration) → 422 not a gift transaction', async () => {
    const signature = gift.registerSignature;
    await expectError(await notify({ signature }), 422, { error: 'not a gift transaction', input: signature });
  });

  it('a gift confirmed but not finalized → 409 transaction not finalized; once finalized → 200', async () => {
    const creator = await fundedWallet(chain);
    const recipient = await fundedWallet(chain);
    const [handle] = await findHandlePda(chain.programId, 'giftslow');
    await exec(chain, creator, [
      getRegisterInstruction({
        programId: chain.programId,
        payer: creator.address,
        owner: creator.address,
        handle,
        name: 'giftslow',
        handleType: 0,
      }),
    ]);
    const [voucher] = await MARKET_PDAS.voucher(chain.programId, creator.address, 1n);
    const tx = await signedTransaction(chain, creator, [
      getMarketInstruction(
        chain.programId,
        'create_voucher',
        { id: 1n, expiresAt: chainNow(chain) + 86_400 },
        { creator: creator.address, handle, voucher, recipient: recipient.address },
      ),
    ]);
    const signature = await chain.sendAndConfirm(tx, { commitment: 'confirmed' });
    await expectError(await notify({ signature }), 409, { error: 'transaction not finalized', input: signature });
    await chain.finalizeAll();
    const res = await notify({ signature });
    expect(res.status, res.text).toBe(200);
    expect(res.body.gifts.map((g: { voucher: string }) => g.voucher)).toEqual([voucher]);
  });

  it('a gift transaction that failed on chain (expiry too far) → 422 transaction failed', async () => {
    const creator = await fundedWallet(chain);
    const [handle] = await findHandlePda(chain.programId, 'giftfar');
    await exec(chain, creator, [
      getRegisterInstruction({
        programId: chain.programId,
        payer: creator.address,
        owner: creator.address,
        handle,
        name: 'giftfar',
        handleType: 0,
      }),
    ]);
    const [voucher] = await MARKET_PDAS.voucher(chain.programId, creator.address, 1n);
    const tx = await signedTransaction(chain, creator, [
      getMarketInstruction(
        chain.programId,
        'create_voucher',
        { id: 1n, expiresAt: chainNow(chain) + 400 * 86_400 },
        { creator: creator.address, handle, voucher, recipient: creator.address },
      ),
    ]);
    const sent = await chain.send(tx, { skipPreflight: true });
    expect(sent.err).not.toBeNull();
    await chain.finalizeAll();
    const signature = sent.signature;
    await expectError(await notify({ signature }), 422, { error: 'transaction failed', input: signature });
  });

  it('the RPC down → 502 rpc unreachable', async () => {
    chain.faults.set({ unreachable: true });
    try {
      await expectError(await notify({ signature: gift.signature }), 502, { error: 'rpc unreachable' });
    } finally {
      chain.faults.clear();
    }
  });
});

describe('GET /gift/{voucher}: bad input', () => {
  it('not an address → 400 invalid address', async () => {
    const res = await app.call('GET', '/gift/not-an-address');
    expect(res.status, res.text).toBe(400);
    expect(res.body).toEqual({ error: 'invalid address', input: 'not-an-address' });
  });

  it('no voucher there (an empty address, a handle account, a wallet) → 404 gift not found', async () => {
    for (const voucher of [base58.encode(randomBytes(32)), gift.handle, gift.creator.address]) {
      const res = await app.call('GET', `/gift/${voucher}`);
      expect(res.status, res.text).toBe(404);
      expect(res.body).toEqual({ error: 'gift not found', input: voucher });
    }
  });
});
