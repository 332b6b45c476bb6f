// Real transactions built with kit and the program clients, wrapped in a fabricated getTransaction answer
// (meta with token balances) so that each rule of the payment shape can be broken on its own.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AccountRole,
  appendTransactionMessageInstructions,
  compressTransactionMessageUsingAddressLookupTables,
  createTransactionMessage,
  decodeTransactionFromRpcResponse,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getSignatureFromTransaction,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransactionMessageWithSigners,
  type Address,
  type Blockhash,
  type Instruction,
  type KeyPairSigner,
  type AccountMeta,
  type AccountSignerMeta,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import {
  findAssociatedTokenPda,
  getTransferCheckedInstruction,
  getTransferInstruction,
  TOKEN_PROGRAM_ADDRESS,
} from '@solana-program/token';
import { getAddMemoInstruction } from '@solana-program/memo';
import { SPL_MEMO_PROGRAM_ADDRESS, TOKEN_2022_PROGRAM_ADDRESS } from '../../platform/chain/programs';
import { checkPaymentTransaction, type PaymentQuote, type PaymentTransactionResponse } from './payment-tx';

const NOW = 1_760_000_000;
const PRICE = 1_000n;
const MINT = 'So11111111111111111111111111111111111111112' as Address;
const MEMO_PROGRAM = SPL_MEMO_PROGRAM_ADDRESS;

let payer: KeyPairSigner;
let stranger: KeyPairSigner;
let payTo: Address;
let reference: Address;
let otherReference: Address;
let otherMint: Address;
let blockhash: Blockhash;

beforeAll(async () => {
  payer = await generateKeyPairSigner();
  stranger = await generateKeyPairSigner();
  payTo = (await generateKeyPairSigner()).address;
  reference = (await generateKeyPairSigner()).address;
  otherReference = (await generateKeyPairSigner()).address;
  otherMint = (await generateKeyPairSigner()).address;
  blockhash = (await generateKeyPairSigner()).address as unknown as Blockhash;
});

const ata = async (owner: Address, mint = MINT, tokenProgram: Address = TOKEN_PROGRAM_ADDRESS) =>
  (await findAssociatedTokenPda({ owner, mint, tokenProgram }))[0];

const quote = (over: Partial<PaymentQuote> = {}): PaymentQuote => ({
  payTo,
  asset: MINT,
  amount: PRICE,
  reference,
  payer: payer.address,
  ...over,
});

const readonlyRef = (address = reference): AccountMeta => ({ address, role: AccountRole.READONLY });

interface TransferOptions {
  mint?: Address;
  destination?: Address;
  amount?: bigint;
  authority?: KeyPairSigner;
  tokenProgram?: Address;
  trailing?: Array<AccountMeta | AccountSignerMeta>;
}

async function transfer(o: TransferOptions = {}): Promise<Instruction> {
  const tokenProgram = o.tokenProgram ?? TOKEN_PROGRAM_ADDRESS;
  const authority = o.authority ?? payer;
  const mint = o.mint ?? MINT;
  const ix = getTransferCheckedInstruction(
    {
      source: await ata(authority.address, mint, tokenProgram),
      mint,
      destination: o.destination ?? (await ata(payTo, mint, tokenProgram)),
      authority,
      amount: o.amount ?? PRICE,
      decimals: 9,
    },
    { programAddress: tokenProgram },
  );
  return { ...ix, accounts: [...ix.accounts, ...(o.trailing ?? [readonlyRef()])] };
}

const limit = (units = 30_000) => getSetComputeUnitLimitInstruction({ units });
const price = (microLamports: bigint | number = 1_000) => getSetComputeUnitPriceInstruction({ microLamports });

async function standard(o: TransferOptions = {}): Promise<Instruction[]> {
  return [limit(), price(), await transfer(o)];
}

interface Wire {
  wire: string;
  signature: string;
  staticAccounts: Address[];
}

async function sign(
  instructions: Instruction[],
  opts: { version?: 0 | 'legacy'; lookup?: Address[] } = {},
): Promise<Wire> {
  let message = pipe(
    createTransactionMessage({ version: opts.version ?? 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight: 100n }, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
  );
  if (opts.lookup) {
    const table = (await generateKeyPairSigner()).address;
    message = compressTransactionMessageUsingAddressLookupTables(message as never, { [table]: opts.lookup }) as never;
  }
  const signed = await signTransactionMessageWithSigners(message);
  const wire = getBase64EncodedWireTransaction(signed);
  const { compiledMessage } = decodeTransactionFromRpcResponse({ transaction: [wire, 'base64'] });
  return { wire, signature: getSignatureFromTransaction(signed), staticAccounts: compiledMessage.staticAccounts };
}

interface RespondOptions {
  credited?: bigint;
  err?: unknown;
  blockTime?: number | null;
  meta?: null;
  pre?: string | null;
  post?: string | null;
  destination?: Address;
  loaded?: { readonly: Address[]; writable: Address[] };
  version?: 0 | 'legacy';
}

async function respond(w: Wire, o: RespondOptions = {}): Promise<PaymentTransactionResponse> {
  const destination = o.destination ?? (await ata(payTo));
  const index = w.staticAccounts.indexOf(destination);
  const balance = (amount: string) => ({
    accountIndex: index,
    mint: MINT,
    owner: payTo,
    programId: TOKEN_PROGRAM_ADDRESS,
    uiTokenAmount: { amount, decimals: 9, uiAmount: null, uiAmountString: amount },
  });
  const pre = o.pre === undefined ? '500' : o.pre;
  const post = o.post === undefined ? String(500n + (o.credited ?? PRICE)) : o.post;
  return {
    blockTime: o.blockTime === undefined ? BigInt(NOW - 20) : o.blockTime,
    meta:
      o.meta === null
        ? null
        : {
            err: o.err ?? null,
            preTokenBalances: pre === null ? [] : [balance(pre)],
            postTokenBalances: post === null ? [] : [balance(post)],
            loadedAddresses: o.loaded ?? { readonly: [], writable: [] },
          },
    transaction: [w.wire, 'base64'],
    version: o.version ?? 0,
  };
}

async function check(instructions: Instruction[] | Wire, r: RespondOptions = {}, q: Partial<PaymentQuote> = {}) {
  const w = Array.isArray(instructions) ? await sign(instructions) : instructions;
  return checkPaymentTransaction(await respond(w, r), quote(q), { now: NOW });
}

async function expectCode(result: Promise<{ ok: boolean; code?: string; message?: string }>, code: string) {
  const r = await result;
  expect(
    r,
    JSON.stringify(r, (_, v) => (typeof v === 'bigint' ? String(v) : v)),
  ).toMatchObject({ ok: false, code });
}

describe('accepted payments', () => {
  it('SPL Token TransferChecked of the quoted amount to the ATA of payTo', async () => {
    const w = await sign(await standard());
    const result = await checkPaymentTransaction(await respond(w), quote(), { now: NOW });
    expect(result).toEqual({ ok: true, amount: PRICE, credited: PRICE, payer: payer.address, signature: w.signature });
  });

  it('Token-2022 transfer to the Token-2022 ATA of payTo', async () => {
    const destination = await ata(payTo, MINT, TOKEN_2022_PROGRAM_ADDRESS);
    const w = await sign([limit(), price(), await transfer({ tokenProgram: TOKEN_2022_PROGRAM_ADDRESS })]);
    const result = await checkPaymentTransaction(
      await respond(w, { destination }),
      quote({ tokenProgram: TOKEN_2022_PROGRAM_ADDRESS }),
      { now: NOW },
    );
    expect(result).toMatchObject({ ok: true, amount: PRICE, credited: PRICE });
  });

  it('legacy transaction, more than the price, caps exactly at their limits, block time exactly 600 s old', async () => {
    const w = await sign([limit(40_000), price(5_000_000n), await transfer({ amount: PRICE + 1n })], {
      version: 'legacy',
    });
    const result = await checkPaymentTransaction(
      await respond(w, { credited: PRICE + 1n, blockTime: NOW - 600, version: 'legacy' }),
      quote({ issuedAt: NOW - 600 }),
      { now: NOW },
    );
    expect(result).toMatchObject({ ok: true, amount: PRICE + 1n, credited: PRICE + 1n });
  });
});

describe('failed, undecodable and unreadable payments', () => {
  it('meta.err → PAYMENT_FAILED', async () => {
    await expectCode(check(await standard(), { err: { InstructionError: [2, { Custom: 1 }] } }), 'PAYMENT_FAILED');
  });
  it('no meta → PAYMENT_UNVERIFIABLE', async () => {
    await expectCode(check(await standard(), { meta: null }), 'PAYMENT_UNVERIFIABLE');
  });
  it('garbage transaction bytes → PAYMENT_UNVERIFIABLE', async () => {
    const r = await respond(await sign(await standard()));
    const garbage = { ...r, transaction: [Buffer.from('not a transaction').toString('base64'), 'base64'] as const };
    await expectCode(checkPaymentTransaction(garbage, quote(), { now: NOW }), 'PAYMENT_UNVERIFIABLE');
  });
  it('no block time → PAYMENT_UNVERIFIABLE', async () => {
    await expectCode(check(await standard(), { blockTime: null }), 'PAYMENT_UNVERIFIABLE');
  });
  it('no post balance for payTo → PAYMENT_UNVERIFIABLE', async () => {
    await expectCode(check(await standard(), { post: null }), 'PAYMENT_UNVERIFIABLE');
  });
  it('no pre balance for payTo → PAYMENT_UNVERIFIABLE', async () => {
    await expectCode(check(await standard(), { pre: null }), 'PAYMENT_UNVERIFIABLE');
  });
  it('unreadable balance amount → PAYMENT_UNVERIFIABLE', async () => {
    await expectCode(check(await standard(), { post: '1e9' }), 'PAYMENT_UNVERIFIABLE');
  });
});

describe('layout', () => {
  it('compute-unit limit 40,001 → PAYMENT_LAYOUT_INVALID', async () => {
    await expectCode(check([limit(40_001), price(), await transfer()]), 'PAYMENT_LAYOUT_INVALID');
  });
  it('compute-unit price 5,000,001 → PAYMENT_LAYOUT_INVALID', async () => {
    await expectCode(check([limit(), price(5_000_001n), await transfer()]), 'PAYMENT_LAYOUT_INVALID');
  });
  it('SetComputeUnitLimit not first → PAYMENT_LAYOUT_INVALID', async () => {
    await expectCode(check([price(), limit(), await transfer()]), 'PAYMENT_LAYOUT_INVALID');
  });
  it('no SetComputeUnitPrice → PAYMENT_LAYOUT_INVALID', async () => {
    await expectCode(check([limit(), await transfer()]), 'PAYMENT_LAYOUT_INVALID');
  });
  it('memo added → PAYMENT_LAYOUT_INVALID', async () => {
    const memo = getAddMemoInstruction({ memo: 'hi' }, { programAddress: MEMO_PROGRAM });
    await expectCode(check([...(await standard()), memo]), 'PAYMENT_LAYOUT_INVALID');
  });
  it('second transfer → PAYMENT_LAYOUT_INVALID', async () => {
    await expectCode(check([...(await standard()), await transfer({ trailing: [] })]), 'PAYMENT_LAYOUT_INVALID');
  });
  it('plain Transfer instead of TransferChecked → PAYMENT_LAYOUT_INVALID', async () => {
    const plain = getTransferInstruction({
      source: await ata(payer.address),
      destination: await ata(payTo),
      authority: payer,
      amount: PRICE,
    });
    await expectCode(
      check([limit(), price(), { ...plain, accounts: [...plain.accounts, readonlyRef()] }]),
      'PAYMENT_LAYOUT_INVALID',
    );
  });
  it('address lookup table → PAYMENT_LAYOUT_INVALID', async () => {
    const w = await sign(await standard(), { lookup: [reference] });
    expect(w.staticAccounts).not.toContain(reference);
    await expectCode(check(w, { loaded: { readonly: [reference], writable: [] } }), 'PAYMENT_LAYOUT_INVALID');
    // Also when the RPC leaves loadedAddresses out.
    const r = await respond(w);
    const { loadedAddresses: _dropped, ...meta } = r.meta!;
    await expectCode(checkPaymentTransaction({ ...r, meta }, quote(), { now: NOW }), 'PAYMENT_LAYOUT_INVALID');
  });
});

describe('authority, asset and destination', () => {
  it('multisig authority → MULTISIG_AUTHORITY_UNSUPPORTED', async () => {
    const multisig = (await generateKeyPairSigner()).address;
    const ix = getTransferCheckedInstruction({
      source: await ata(multisig),
      mint: MINT,
      destination: await ata(payTo),
      authority: multisig,
      amount: PRICE,
      decimals: 9,
      multiSigners: [payer, stranger],
    });
    await expectCode(
      check([limit(), price(), { ...ix, accounts: [...ix.accounts, readonlyRef()] }]),
      'MULTISIG_AUTHORITY_UNSUPPORTED',
    );
  });
  it('signed by another wallet → PAYER_MISMATCH', async () => {
    await expectCode(check(await standard({ authority: stranger })), 'PAYER_MISMATCH');
  });
  it('different mint → PAYMENT_WRONG_ASSET', async () => {
    await expectCode(
      check(await standard({ mint: otherMint, destination: await ata(payTo, otherMint) })),
      'PAYMENT_WRONG_ASSET',
    );
  });
  it('token program other than the quoted asset’s → PAYMENT_WRONG_ASSET', async () => {
    await expectCode(check(await standard(), {}, { tokenProgram: TOKEN_2022_PROGRAM_ADDRESS }), 'PAYMENT_WRONG_ASSET');
  });
  it('to another token account of payTo’s mint → PAYMENT_WRONG_DESTINATION', async () => {
    const elsewhere = await ata(stranger.address);
    await expectCode(
      check(await standard({ destination: elsewhere }), { destination: elsewhere }),
      'PAYMENT_WRONG_DESTINATION',
    );
  });
  it('to the Token-2022 ATA while paying with SPL Token → PAYMENT_WRONG_DESTINATION', async () => {
    const wrong = await ata(payTo, MINT, TOKEN_2022_PROGRAM_ADDRESS);
    await expectCode(
      check(await standard({ destination: wrong }), { destination: wrong }),
      'PAYMENT_WRONG_DESTINATION',
    );
  });
});

describe('reference', () => {
  it('missing → REFERENCE_MISSING', async () => {
    await expectCode(check(await standard({ trailing: [] })), 'REFERENCE_MISSING');
  });
  it('writable → REFERENCE_MISSING', async () => {
    await expectCode(
      check(await standard({ trailing: [{ address: reference, role: AccountRole.WRITABLE }] })),
      'REFERENCE_MISSING',
    );
  });
  it('signer → REFERENCE_MISSING', async () => {
    const refSigner = await generateKeyPairSigner();
    const signerMeta: AccountSignerMeta = {
      address: refSigner.address,
      role: AccountRole.READONLY_SIGNER,
      signer: refSigner,
    };
    await expectCode(
      check(await standard({ trailing: [signerMeta] }), {}, { reference: refSigner.address }),
      'REFERENCE_MISSING',
    );
  });
  it('repeated → REFERENCE_MISSING', async () => {
    await expectCode(check(await standard({ trailing: [readonlyRef(), readonlyRef()] })), 'REFERENCE_MISSING');
  });
  it('also in another instruction → REFERENCE_MISSING', async () => {
    const p = price();
    await expectCode(check([limit(), { ...p, accounts: [readonlyRef()] }, await transfer()]), 'REFERENCE_MISSING');
  });
  it('only in another instruction → REFERENCE_MISSING', async () => {
    const p = price();
    await expectCode(
      check([limit(), { ...p, accounts: [readonlyRef()] }, await transfer({ trailing: [] })]),
      'REFERENCE_MISSING',
    );
  });
  it('issued for another request → REFERENCE_MISMATCH', async () => {
    await expectCode(check(await standard({ trailing: [readonlyRef(otherReference)] })), 'REFERENCE_MISMATCH');
  });
  it('more than one reference → REFERENCE_MISMATCH', async () => {
    await expectCode(
      check(await standard({ trailing: [readonlyRef(), readonlyRef(otherReference)] })),
      'REFERENCE_MISMATCH',
    );
  });
});

describe('amounts', () => {
  it('instruction amount below the price → PAYMENT_AMOUNT_TOO_LOW', async () => {
    await expectCode(check(await standard({ amount: PRICE - 1n }), { credited: PRICE - 1n }), 'PAYMENT_AMOUNT_TOO_LOW');
  });
  it('transfer-fee mint leaves payTo short → PAYMENT_AMOUNT_TOO_LOW', async () => {
    const result = await check(await standard({ amount: PRICE }), { credited: PRICE - 10n });
    expect(result).toEqual({
      ok: false,
      code: 'PAYMENT_AMOUNT_TOO_LOW',
      message: 'payTo was credited 990, 1000 required (transfer fees count)',
    });
  });
});

describe('time windows', () => {
  it('payment older than 600 s → PAYMENT_STALE', async () => {
    await expectCode(check(await standard(), { blockTime: NOW - 601 }), 'PAYMENT_STALE');
  });
  it('reference issued more than 600 s ago → REFERENCE_EXPIRED, even for a fresh payment', async () => {
    await expectCode(check(await standard(), {}, { issuedAt: NOW - 601 }), 'REFERENCE_EXPIRED');
  });
});
