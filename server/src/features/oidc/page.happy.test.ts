// The sign-in page's script helpers as the page runs them (test/support/oidc-page.ts evaluates PAGE_HELPERS): the
// memo transaction's bytes (literal, and equal to what @solana/kit compiles, as the portal builds it), the
// encodings, which proofs a wallet can make, and that genuine challenges and sign-ins pass the page's checks.
import { describe, expect, it } from 'vitest';
import { base58, base64 } from '@scure/base';
import {
  address,
  appendTransactionMessageInstruction,
  blockhash,
  compileTransaction,
  createTransactionMessage,
  getAddressEncoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
} from '@solana/kit';
import { getOffchainMessageV1Encoder } from '@solana/offchain-messages';
import { pageHelpers as h } from '../../../../test/support/oidc-page';
import { signInPage } from './page';

const WALLET = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';
const MEMO_PROGRAM = 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr';
const keyOf = (a: string) => new Uint8Array(getAddressEncoder().encode(address(a)));
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

/** The CONFIG object the page's script starts from. */
function pageConfig(html: string) {
  const json = /const CONFIG = (.*);\n/.exec(html)?.[1];
  return JSON.parse(json!) as { audience: string; statement: string; memoProgram: number[]; methods: string[][] };
}

/** The portal's memo transaction (web-portal/lib/signin.ts), compiled by @solana/kit. */
function kitMemoTransaction(wallet: string, memo: string): Uint8Array {
  const message = pipe(
    createTransactionMessage({ version: 'legacy' }),
    (m) => setTransactionMessageFeePayer(address(wallet), m),
    (m) =>
      setTransactionMessageLifetimeUsingBlockhash(
        { blockhash: blockhash('11111111111111111111111111111111'), lastValidBlockHeight: 0n },
        m,
      ),
    (m) =>
      appendTransactionMessageInstruction(
        { programAddress: address(MEMO_PROGRAM), accounts: [], data: new TextEncoder().encode(memo) },
        m,
      ),
  );
  return new Uint8Array(getTransactionEncoder().encode(compileTransaction(message)));
}

describe('the memo transaction (/verify-tx)', () => {
  it('is exactly these bytes: one empty signature, header 1/0/1, [wallet, memo program], zero blockhash, the memo', () => {
    const tx = h.memoTransaction(keyOf(WALLET), keyOf(MEMO_PROGRAM), 'sigil-verify:key_A:n_7QpX2kd9');
    expect(hex(tx)).toBe(
      '01' +
        '00'.repeat(64) +
        '010001' +
        '02' +
        '321cfa5add185e8893a5fd88013ec4d7e122ded46354cadff50d956395e75b60' +
        '054a535a992921064d24e87160da387c7c35b5ddbc92bb81e41fa8404105448d' +
        '00'.repeat(32) +
        '01' +
        '01' +
        '00' +
        '1d' +
        '736967696c2d7665726966793a6b65795f413a6e5f37517058326b6439',
    );
  });

  it('equals what @solana/kit compiles, also for a memo over 127 bytes (a two-byte length)', () => {
    for (const memo of ['sigil-verify:key_A:n_7QpX2kd9', `sigil-verify:key_${'x'.repeat(120)}:n_7QpX2kd9`]) {
      const tx = h.memoTransaction(keyOf(WALLET), keyOf(MEMO_PROGRAM), memo);
      expect(hex(tx)).toBe(hex(kitMemoTransaction(WALLET, memo)));
      const decoded = getTransactionDecoder().decode(tx);
      const message = getCompiledTransactionMessageDecoder().decode(decoded.messageBytes);
      if (message.version === 1) throw new Error('a legacy message was expected');
      expect(message.version).toBe('legacy');
      expect(message.staticAccounts).toEqual([WALLET, MEMO_PROGRAM]);
      expect(new TextDecoder().decode(message.instructions[0]!.data)).toBe(memo);
      expect(decoded.signatures).toEqual({ [WALLET]: null });
    }
  });

  it('compact-u16 lengths: 7 bits a byte, low first', () => {
    expect([0, 127, 128, 300, 16383, 16384].map(h.shortVec)).toEqual([
      [0],
      [127],
      [128, 1],
      [172, 2],
      [255, 127],
      [128, 128, 1],
    ]);
  });

  it('the page embeds the SPL Memo program id the service accepts', () => {
    const config = pageConfig(signInPage({ uid: 'u1', clientId: 'key_A', scopes: ['openid'] }));
    expect(base58.encode(Uint8Array.from(config.memoProgram))).toBe(MEMO_PROGRAM);
  });
});

describe('encodings', () => {
  it('base58 and base64 as the service decodes them', () => {
    const hello = new TextEncoder().encode('Hello World!');
    expect(h.base58(hello)).toBe('2NEpo7TZRRrLZSi2U');
    expect(h.base64(hello)).toBe('SGVsbG8gV29ybGQh');
    const withZeros = Uint8Array.from([0, 0, 1, 255, 0, 77]);
    expect(h.base58(withZeros)).toBe(base58.encode(withZeros));
    expect(h.base64(withZeros)).toBe(base64.encode(withZeros));
  });
});

describe('which proofs a wallet offers', () => {
  const methods = pageConfig(signInPage({ uid: 'u1', clientId: 'key_A', scopes: ['openid'] })).methods;
  const wallet = (...features: string[]) => ({
    chains: ['solana:mainnet'],
    features: Object.fromEntries(['standard:connect', ...features].map((f) => [f, {}])),
  });

  it('in the order message, Sign-In With Solana, memo transaction', () => {
    expect(methods).toEqual([
      ['message', 'solana:signMessage'],
      ['signin', 'solana:signIn'],
      ['tx', 'solana:signTransaction'],
    ]);
    expect(h.proofMethods(wallet('solana:signTransaction', 'solana:signIn', 'solana:signMessage'), methods)).toEqual([
      'message',
      'signin',
      'tx',
    ]);
  });

  it('a hardware-style wallet that only signs transactions: the memo transaction only', () => {
    expect(h.proofMethods(wallet('solana:signTransaction'), methods)).toEqual(['tx']);
    expect(h.proofMethods(wallet('solana:signIn'), methods)).toEqual(['signin']);
  });

  it('none for a wallet that only signs and sends, cannot connect, or is not a Solana wallet', () => {
    expect(h.proofMethods(wallet('solana:signAndSendTransaction'), methods)).toEqual([]);
    expect(h.proofMethods({ chains: ['solana:devnet'], features: { 'solana:signMessage': {} } }, methods)).toEqual([]);
    expect(h.proofMethods({ ...wallet('solana:signMessage'), chains: ['eip155:1'] }, methods)).toEqual([]);
  });
});

describe('genuine challenges and sign-ins pass the page’s checks', () => {
  const nonce = 'N7QpX2kd9aBc';
  const wallet = { nonce, audience: 'key_A', challenge: `sigil-connect:v2:wallet-control:key_A:${WALLET}:${nonce}` };

  it('message: the wallet-control or handle-control v2 string for this client', () => {
    expect(h.bindingProblem('message', wallet, 'key_A', WALLET)).toBeNull();
    const handle = {
      ...wallet,
      challenge: `sigil-connect:v2:handle-control:key_A:sigil-handles:ctl:v1:alice:1:${nonce}`,
    };
    expect(h.bindingProblem('message', handle, 'key_A', WALLET)).toBeNull();
  });

  it('memo transaction and Sign-In With Solana: the address-control challenge (and memo) for this client', () => {
    expect(h.bindingProblem('tx', { ...wallet, memo: `sigil-verify:key_A:${nonce}` }, 'key_A', WALLET)).toBeNull();
    expect(h.bindingProblem('signin', wallet, 'key_A', WALLET)).toBeNull();
  });

  const text =
    `sigil.example wants you to sign in with your Solana account:\n${WALLET}\n\nSign in to key_A with Sigil.\n\n` +
    `URI: https://sigil.example\nVersion: 1\nNonce: ${nonce}\nIssued At: 2026-03-01T12:00:00.000Z`;

  it('a signed sign-in naming this site, the account and the nonce, raw or in an off-chain envelope', () => {
    expect(h.signInProblem(new TextEncoder().encode(text), 'sigil.example', WALLET, nonce)).toBeNull();
    const envelope = new Uint8Array(
      getOffchainMessageV1Encoder().encode({
        version: 1,
        requiredSignatories: [{ address: WALLET as Address }],
        content: text,
      }),
    );
    expect(envelope[0]).toBe(0xff);
    expect(h.signInProblem(envelope, 'sigil.example', WALLET, nonce)).toBeNull();
  });
});

describe('the page', () => {
  it('the Sign-In With Solana statement names the client on one line, with its key id', () => {
    const statement = (clientName?: string) =>
      pageConfig(signInPage({ uid: 'u1', clientId: 'key_A', clientName, scopes: ['openid'] })).statement;
    expect(statement()).toBe('Sign in to key_A with Sigil.');
    expect(statement('key_A')).toBe('Sign in to key_A with Sigil.');
    expect(statement('Acme Books')).toBe('Sign in to Acme Books (key_A) with Sigil.');
    expect(statement('Acme\nURI: https://evil.example\u2028x')).toBe(
      'Sign in to Acme URI: https://evil.example x (key_A) with Sigil.',
    );
    expect(statement('y'.repeat(200))).toBe(`Sign in to ${'y'.repeat(80)} (key_A) with Sigil.`);
  });

  it('one labelled choice per proof, in the order of preference', () => {
    const html = signInPage({ uid: 'u1', clientId: 'key_A', scopes: ['openid'] });
    const choices = [...html.matchAll(/<input type="radio" name="method" id="method-(\w+)" value="(\w+)"> ([^<]+)</g)];
    expect(choices.map((m) => [m[1], m[2], m[3]])).toEqual([
      ['message', 'message', 'Sign a message'],
      ['signin', 'signin', 'Sign in with Solana'],
      ['tx', 'tx', 'Sign a memo transaction'],
    ]);
  });
});
