// Gate over real HTTP on the demo scenario: every leaf true / false / null from real chain state, RPC down →
// indeterminate (never allow), subjects (handle, wallet, a session of this key; another key's session refused),
// inline and stored policies with the same hash deciding alike, signed decisions verified with jose against the
// published JWKS, and the policy store (CRUD, ETag, If-Match races) on both dialects.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, jwtVerify } from 'jose';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import { getInitializeAccount3Instruction, getTransferCheckedInstruction } from '@solana-program/token';
import { findAttestationPda, findHandlePda, getTokenizeInstruction } from '../../server/src/platform/chain/registry';
import { policyHash, type PolicyNode } from '@sigil/contract/gate';
import { createGateService } from '../../server/src/features/gate/service';
import { createReverseService } from '../../server/src/features/reverse/service';
import { createChainReader } from '../../server/src/platform/chain/reader';
import type { ChainReader } from '../../server/src/platform/chain/types';
import { demoWallet } from '../../server/src/localchain/scenario';
import { apiKeyAuthSuite } from '../support/auth-suite';
import { countingReader } from '../support/localchain-wallets';
import { show, signIn } from '../support/connect-world';
import { DIALECTS, postgresReachable } from '../support/db';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';
import { useScenarioApp, withFaults } from '../support/scenario-app';
import {
  ataOf,
  createMint,
  exec,
  fundedWallet,
  fundTokens,
  registerName,
  TOKEN_2022_PROGRAM_ADDRESS,
  TOKEN_PROGRAM_ADDRESS,
  transferName,
} from '../support/webhooks-world';

const t = useScenarioApp();
const { wallet } = t;
const check = (body: unknown, key = t.app.key.secret, a = t.app) => a.call('POST', '/v1/gate/check', { key, body });

/** The one leaf's result of an inline single-leaf policy for a subject. */
async function leaf(
  subject: unknown,
  policy: PolicyNode,
): Promise<{ decision: string; result: boolean | null; reason: any }> {
  const res = await check({ subject, policy });
  expect(res.status, show(res)).toBe(200);
  const reason = res.body.reasons[0];
  return { decision: res.body.decision, result: reason.result, reason };
}

describe('POST /v1/gate/check: leaves on the demo scenario', () => {
  const rows: [string, unknown, PolicyNode, boolean][] = [
    ['handle.owned named, NFT holder in its ATA', { wallet: '$dave' }, { 'handle.owned': { handle: 'vault' } }, true],
    [
      'handle.owned named, recorded owner whose NFT moved',
      { wallet: '$carol' },
      { 'handle.owned': { handle: 'vault' } },
      false,
    ],
    ['handle.owned named, unregistered', { wallet: '$alice' }, { 'handle.owned': { handle: 'nobody' } }, false],
    ['handle.owned of the subject handle', { handle: '@alice' }, { 'handle.owned': {} }, true],
    ['handle.primary trusted', { wallet: '$alice' }, { 'handle.primary': { handle: '@alice' } }, true],
    ['handle.primary another handle', { wallet: '$alice' }, { 'handle.primary': { handle: 'bob' } }, false],
    ['handle.primary older than the registration', { wallet: '$erin' }, { 'handle.primary': {} }, false],
    ['handle.type agent', { handle: 'scout' }, { 'handle.type': { type: 'agent' } }, true],
    ['handle.type agent of a plain handle', { handle: 'alice' }, { 'handle.type': { type: 'agent' } }, false],
    ['record.verified SOL', { handle: 'alice' }, { 'record.verified': { chain: 'SOL' } }, true],
    ['record.verified, present but unverified', { handle: 'alice' }, { 'record.verified': { chain: 'BTC' } }, false],
    ['record.verified, no record', { handle: 'scout' }, { 'record.verified': { chain: 'ETH' } }, false],
    ['attestation live', { handle: 'alice' }, { attestation: { platform: 'x' } }, true],
    [
      'attestation by another issuer',
      { handle: 'alice' },
      { attestation: { platform: 'x', issuers: ['$alice'] } },
      false,
    ],
    ['attestation revoked', { handle: 'bob' }, { attestation: { platform: 'x' } }, false],
    ['attestation expired', { handle: 'bob' }, { attestation: { platform: 'github' } }, false],
    ['attestation within maxAgeSec', { handle: 'alice' }, { attestation: { platform: 'x', maxAgeSec: 86_400 } }, true],
    ['attestation older than maxAgeSec', { handle: 'alice' }, { attestation: { platform: 'x', maxAgeSec: 1 } }, false],
    ['agent.level L0 of a declared agent', { handle: 'scout' }, { 'agent.level': { min: 'L0' } }, true],
    ['agent.level L0 of a plain handle', { handle: 'alice' }, { 'agent.level': { min: 'L0' } }, false],
    [
      'token.balance SPL Token enough',
      { wallet: '$payer1' },
      { 'token.balance': { mint: '$usdx', min: '1000000000' } },
      true,
    ],
    [
      'token.balance SPL Token short',
      { wallet: '$payer1' },
      { 'token.balance': { mint: '$usdx', min: '1000000001' } },
      false,
    ],
    ['wallet.in listed', { handle: 'alice' }, { 'wallet.in': { list: ['$bob', '$alice'] } }, true],
    ['wallet.in not listed', { handle: 'alice' }, { 'wallet.in': { list: ['$bob'] } }, false],
  ];
  /** `$name` → that scenario wallet's (or mint's) address, anywhere in a value. */
  const fill = (value: unknown): any =>
    JSON.parse(
      JSON.stringify(value).replace(/"\$(\w+)"/g, (_, name: string) =>
        JSON.stringify(name === 'usdx' ? t.scenario.mints.usdx!.address : wallet(name)),
      ),
    );
  /**
   * The demo attestation was issued moments before the tests (in the same second, on a fast machine): the
   * maxAgeSec: 1 row waits until the wall clock is two whole seconds past its issue time, so that it is older than
   * a second whatever the machine's speed (the check compares whole seconds).
   */
  async function untilOlderThanOneSecond(): Promise<void> {
    const live = await leaf({ handle: 'alice' }, { attestation: { platform: 'x' } });
    const issuedAt = live.reason.evidence.attestation.issuedAt as number;
    while (Math.floor(Date.now() / 1000) < issuedAt + 2) await new Promise((r) => setTimeout(r, 100));
  }
  for (const [what, subject, policy, expected] of rows) {
    it(`${what} → ${expected}`, async () => {
      if (what === 'attestation older than maxAgeSec') await untilOlderThanOneSecond();
      const { decision, result, reason } = await leaf(fill(subject), fill(policy));
      expect(result, JSON.stringify(reason)).toBe(expected);
      expect(decision).toBe(expected ? 'allow' : 'deny');
    });
  }

  it('a decision body: subject, slot, times, hash, evidence of an attestation (its expiry bounds validUntil)', async () => {
    const policy: PolicyNode = { all: [{ 'handle.primary': {} }, { attestation: { platform: 'x' } }] };
    const res = await check({ subject: { wallet: wallet('alice') }, policy });
    expect(res.status, show(res)).toBe(200);
    const { slot, evaluatedAt, validUntil, reasons, ...rest } = res.body;
    expect(rest).toStrictEqual({
      decision: 'allow',
      policyHash: policyHash(policy),
      subject: { wallet: wallet('alice'), handle: 'alice' },
    });
    expect(validUntil - evaluatedAt).toBe(60); // alice's attestation never expires
    expect(Math.abs(evaluatedAt - Date.now() / 1000)).toBeLessThan(600);
    expect(slot).toBeGreaterThan(0);
    expect(reasons.map((r: { path: string }) => r.path)).toEqual([
      '/all',
      '/all/0/handle.primary',
      '/all/1/attestation',
    ]);
    expect(reasons[2].evidence.attestation).toMatchObject({
      issuer: wallet('attester'),
      subject: 'alice_onchain',
      revoked: false,
    });
  });

  it('an unregistered handle subject: handle and wallet leaves are false (deny), not errors', async () => {
    const res = await check({
      subject: { handle: 'nobody' },
      policy: { any: [{ 'handle.owned': {} }, { 'wallet.in': { list: [wallet('alice')] } }] },
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body.decision).toBe('deny');
    expect(res.body.subject).toStrictEqual({ wallet: null, handle: null });
  });
});

describe('POST /v1/gate/check: chain failures are null, and null is never allow', () => {
  it('RPC down: every leaf that reads is null → indeterminate; `any` with a true wallet.in still allows', async () => {
    const policy: PolicyNode = {
      all: [{ 'handle.primary': {} }, { 'token.balance': { mint: t.scenario.mints.usdx!.address, min: '1' } }],
    };
    const res = await withFaults(t.app.chain, () => check({ subject: { wallet: wallet('alice') }, policy }));
    expect(res.status, show(res)).toBe(200);
    expect(res.body.decision).toBe('indeterminate');
    expect(res.body.reasons.map((r: { result: unknown }) => r.result)).toEqual([null, null, null]);
    expect(res.body.reasons[1].error).toMatch(/rpc unreachable/);

    const either = await withFaults(t.app.chain, () =>
      check({
        subject: { wallet: wallet('alice') },
        policy: { any: [{ 'handle.primary': {} }, { 'wallet.in': { list: [wallet('alice')] } }] },
      }),
    );
    expect(either.body.decision).toBe('allow'); // decided by a leaf that needs no read
    const both = await withFaults(t.app.chain, () =>
      check({
        subject: { wallet: wallet('alice') },
        policy: { all: [{ 'handle.primary': {} }, { 'wallet.in': { list: [wallet('alice')] } }] },
      }),
    );
    expect(both.body.decision).toBe('indeterminate');
  });

  it('an attestation account that does not decode: that leaf is null (indeterminate), its neighbours still read', async () => {
    const [attestation] = await findAttestationPda(t.app.chain.programId, t.scenario.handles.alice!.account, 'x');
    t.app.chain.faults.set({ malformedAccounts: [attestation] });
    try {
      const res = await check({
        subject: { handle: 'alice' },
        policy: { all: [{ attestation: { platform: 'x' } }, { 'record.verified': { chain: 'SOL' } }] },
      });
      expect(res.status, show(res)).toBe(200);
      expect(res.body.decision).toBe('indeterminate');
      expect(res.body.reasons.map((r: { result: unknown }) => r.result)).toEqual([null, null, true]);
      expect(res.body.reasons[1].error).toBe(`malformed account ${attestation}`);
    } finally {
      t.app.chain.faults.clear();
    }
  });

  it('RPC down with a handle subject: the wallet is unknown, so even wallet.in is null', async () => {
    const res = await withFaults(t.app.chain, () =>
      check({ subject: { handle: 'alice' }, policy: { 'wallet.in': { list: [wallet('alice')] } } }),
    );
    expect(res.body).toMatchObject({ decision: 'indeterminate', subject: { wallet: null, handle: null }, slot: 0 });
    expect(res.body.reasons[0].error).toBe("the subject's wallet could not be read (rpc unreachable)");
  });
});

describe('POST /v1/gate/check: state built on the local chain', () => {
  let owner: KeyPairSigner;
  let heir: KeyPairSigner;
  let mint2022: string;

  beforeAll(async () => {
    owner = await fundedWallet(t.app.chain);
    heir = await fundedWallet(t.app.chain);
    const payment = await fundedWallet(t.app.chain);
    // A verified X1 record written by `owner`, then the handle moves to `heir`: the record is stale.
    const handle = await registerName(t.app.chain, 'gatestale', owner, payment);
    await transferName(t.app.chain, handle, owner, heir.address);
    mint2022 = await createMint(t.app.chain, owner, TOKEN_2022_PROGRAM_ADDRESS, 6);
    await fundTokens(t.app.chain, owner, mint2022 as never, heir.address, TOKEN_2022_PROGRAM_ADDRESS, 2_500_000n);

    // A tokenized handle whose NFT its holder keeps in a token account that is not the associated one.
    const programId = t.app.chain.programId;
    const [gatenft] = await findHandlePda(programId, 'gatenft');
    await registerName(t.app.chain, 'gatenft', owner);
    const nft = await generateKeyPairSigner();
    const ata = await ataOf(owner.address, nft.address, TOKEN_PROGRAM_ADDRESS);
    await exec(
      t.app.chain,
      owner,
      [
        getTokenizeInstruction({
          programId,
          owner: owner.address,
          handle: gatenft,
          mint: nft.address,
          ownerTokenAccount: ata,
        }),
      ],
      [nft],
    );
    const side = await generateKeyPairSigner();
    const rent = await t.app.chain.rpc.getMinimumBalanceForRentExemption(165n).send();
    await exec(
      t.app.chain,
      owner,
      [
        getCreateAccountInstruction({
          payer: owner,
          newAccount: side,
          lamports: rent,
          space: 165n,
          programAddress: TOKEN_PROGRAM_ADDRESS,
        }),
        getInitializeAccount3Instruction({ account: side.address, mint: nft.address, owner: owner.address }),
        getTransferCheckedInstruction({
          source: ata,
          mint: nft.address,
          destination: side.address,
          authority: owner,
          amount: 1n,
          decimals: 0,
        }),
      ],
      [side],
    );
  }, 60_000);

  it('a tokenized handle held outside the holder’s associated token account is owned by nobody', async () => {
    const { result, reason } = await leaf({ wallet: owner.address }, { 'handle.owned': { handle: 'gatenft' } });
    expect(result).toBe(false);
    expect(reason.evidence).toStrictEqual({ handle: 'gatenft', authority: null, source: 'nft-holder' });
  });

  it('a session that proved a handle stands for it only while its wallet still holds it', async () => {
    const seller = await fundedWallet(t.app.chain);
    const buyer = await fundedWallet(t.app.chain);
    const handle = await registerName(t.app.chain, 'gatesold', seller);
    const signedIn = await signIn(t.app, {
      keySecret: t.app.key.secret,
      audience: t.app.key.key.id,
      wallet: seller,
      body: { handle: 'gatesold' },
    });
    expect(signedIn.status, show(signedIn)).toBe(200);
    const body = { subject: { session: signedIn.body.token }, policy: { 'handle.type': { type: 'standard' } } };
    const before = await check(body);
    expect(before.body).toMatchObject({ decision: 'allow', subject: { wallet: seller.address, handle: 'gatesold' } });
    await transferName(t.app.chain, handle, seller, buyer.address);
    const after = await check(body);
    expect(after.body).toMatchObject({ decision: 'deny', subject: { wallet: seller.address, handle: null } });
  });

  it('a stale verified record (written under the previous owner) does not count', async () => {
    const { result, reason } = await leaf({ handle: 'gatestale' }, { 'record.verified': { chain: 'X1' } });
    expect(result).toBe(false);
    expect(reason.evidence).toMatchObject({ stale: true, verifiedAt: null });
  });

  it('a Token-2022 balance counts', async () => {
    const enough = await leaf({ wallet: heir.address }, { 'token.balance': { mint: mint2022, min: '2500000' } });
    expect([enough.result, enough.reason.evidence.balance]).toEqual([true, '2500000']);
    expect((await leaf({ wallet: heir.address }, { 'token.balance': { mint: mint2022, min: '2500001' } })).result).toBe(
      false,
    );
    expect((await leaf({ wallet: owner.address }, { 'token.balance': { mint: mint2022, min: '1' } })).result).toBe(
      false,
    );
  });
});

/** A gate service of its own over the app's database and `reader` (no sessions), on the service clock or `now`. */
const gateOver = (reader: ChainReader, now?: () => number) =>
  createGateService({
    db: t.app.database.db,
    chain: reader,
    reverse: createReverseService({ chain: reader }),
    agents: { level: () => Promise.reject(new Error('no agent levels here')) },
    sessions: { verify: () => Promise.reject(new Error('no sessions here')) },
    suffixes: t.app.config.domainSuffixes,
    production: false,
    issuer: 'http://sigil.test',
    ...(now ? { now } : {}),
  });

describe('attestation expiring exactly now (the service clock)', () => {
  it('live one second before expiresAt (validUntil = expiresAt), not at expiresAt', async () => {
    const reader = createChainReader({ rpcUrl: t.app.chain.url, programId: t.app.chain.programId, timeoutMs: 5000 });
    const bobHandle = (await reader.getHandle('bob')).value!;
    const github = (await reader.getAttestations(bobHandle.address)).find((a) => a.platform === 'github')!;
    expect(github.expiresAt).toBeGreaterThan(0);
    const gateAt = (nowSec: number) => gateOver(reader, () => nowSec * 1000);
    const caller = { keyId: t.app.key.key.id, account: t.app.key.key.account };
    const input = { subject: { handle: 'bob' }, policy: { attestation: { platform: 'github' } } };
    const before = await gateAt(github.expiresAt - 1).check(caller, input);
    expect([before.decision, before.validUntil]).toEqual(['allow', github.expiresAt]);
    const atExpiry = await gateAt(github.expiresAt).check(caller, input);
    expect(atExpiry.decision).toBe('deny');
  });
});

describe('RPC calls of a check', () => {
  it('five leaves on a wallet subject: the reverse (2), the handle’s records and attestations at once (1), the balance (2)', async () => {
    const { reader, calls } = countingReader(t.app.chain);
    const gate = gateOver(reader);
    const policy: PolicyNode = {
      all: [
        { 'handle.primary': {} },
        { attestation: { platform: 'x' } },
        { 'record.verified': { chain: 'SOL' } },
        { 'token.balance': { mint: t.scenario.mints.usdx!.address, min: '0' } },
        { 'wallet.in': { list: [wallet('alice')] } },
      ],
    };
    const result = await gate.check(
      { keyId: t.app.key.key.id, account: t.app.key.key.account },
      { subject: { wallet: wallet('alice') }, policy },
    );
    expect(result.decision).toBe('allow');
    expect(calls.sort()).toEqual([
      'getMultipleAccounts',
      'getMultipleAccounts',
      'getMultipleAccounts',
      'getProgramAccounts',
      'getProgramAccounts',
    ]);
  });
});

describe('POST /v1/gate/check: subjects and requests', () => {
  it('a session issued through this key stands for its wallet', async () => {
    const alice = await demoWallet('alice');
    const signedIn = await signIn(t.app, { keySecret: t.app.key.secret, audience: t.app.key.key.id, wallet: alice });
    expect(signedIn.status, show(signedIn)).toBe(200);
    const res = await check({
      subject: { session: signedIn.body.token },
      policy: { 'handle.primary': { handle: 'alice' } },
    });
    expect(res.status, show(res)).toBe(200);
    expect(res.body).toMatchObject({ decision: 'allow', subject: { wallet: wallet('alice'), handle: 'alice' } });
  });

  it('a session issued through another key is refused: 401 INVALID_SESSION', async () => {
    const alice = await demoWallet('alice');
    const other = await signIn(t.app, {
      keySecret: t.app.otherKey.secret,
      audience: t.app.otherKey.key.id,
      wallet: alice,
    });
    expect(other.status, show(other)).toBe(200);
    const res = await check({ subject: { session: other.body.token }, policy: { 'handle.primary': {} } });
    expect(res.status, show(res)).toBe(401);
    expect(res.body.code).toBe('INVALID_SESSION');
  });

  const refusals: [string, unknown, number, string][] = [
    [
      'two subjects',
      { subject: { handle: 'alice', wallet: 'x' }, policy: { 'handle.primary': {} } },
      400,
      'INVALID_SUBJECT',
    ],
    ['a bad wallet', { subject: { wallet: 'nope' }, policy: { 'handle.primary': {} } }, 400, 'INVALID_SUBJECT'],
    ['a bad handle', { subject: { handle: 'a b' }, policy: { 'handle.primary': {} } }, 400, 'INVALID_SUBJECT'],
    ['no policy', { subject: { handle: 'alice' } }, 400, 'INVALID_POLICY'],
    [
      'both policy and policyId',
      { subject: { handle: 'alice' }, policyId: 'gpol_x', policy: { 'handle.primary': {} } },
      400,
      'INVALID_POLICY',
    ],
    ['an unknown policyId', { subject: { handle: 'alice' }, policyId: 'gpol_missing' }, 404, 'POLICY_NOT_FOUND'],
    [
      'a policy too deep',
      {
        subject: { handle: 'alice' },
        policy: { not: { not: { not: { not: { not: { not: { not: { not: { 'handle.primary': {} } } } } } } } } },
      },
      400,
      'POLICY_TOO_DEEP',
    ],
    ['a forged session', { subject: { session: 'a.b.c' }, policy: { 'handle.primary': {} } }, 401, 'INVALID_SESSION'],
    ['not an object', 'hello', 400, 'BAD_REQUEST'],
  ];
  for (const [what, body, status, code] of refusals) {
    it(`${what} → ${status} ${code}`, async () => {
      const res = await check(body);
      expect(res.status, show(res)).toBe(status);
      expect(res.body.code, show(res)).toBe(code);
      expect(Object.keys(res.body).sort()).toEqual(['code', 'message']);
    });
  }

  it('costs 4 rate-limit units', async () => {
    const first = await check({ subject: { handle: 'alice' }, policy: { 'handle.primary': {} } });
    const second = await check({ subject: { handle: 'alice' }, policy: { 'handle.primary': {} } });
    expect(
      Number(first.headers.get('x-ratelimit-daily-remaining')) -
        Number(second.headers.get('x-ratelimit-daily-remaining')),
    ).toBe(4);
  });

  it('is never sold for x402: a keyless check is 401 API_KEY_REQUIRED', async () => {
    const res = await t.app.call('POST', '/v1/gate/check', {
      body: { subject: { handle: 'alice' }, policy: { 'handle.primary': {} } },
    });
    expect(res.status).toBe(401);
    expect(res.body.code).toBe('API_KEY_REQUIRED');
  });

  apiKeyAuthSuite(
    'POST /v1/gate/check',
    () => t.app,
    (a, auth) =>
      a.call('POST', '/v1/gate/check', {
        ...auth,
        body: { subject: { handle: 'alice' }, policy: { 'handle.primary': {} } },
      }),
  );
});

describe('signed decisions', () => {
  it('sign: true → a compact EdDSA JWS of the decision, verified by jose against /.well-known/jwks.json', async () => {
    const policy: PolicyNode = { 'handle.primary': { handle: 'alice' } };
    const res = await check({ subject: { wallet: wallet('alice') }, policy, sign: true });
    expect(res.status, show(res)).toBe(200);
    const { jws, ...decision } = res.body;
    expect(jws.split('.')).toHaveLength(3);
    const jwks = await t.app.call('GET', '/.well-known/jwks.json');
    expect(jwks.status).toBe(200);
    expect(jwks.body.keys).toHaveLength(1);
    expect(jwks.body.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', alg: 'EdDSA', use: 'sig' });
    const { payload, protectedHeader } = await jwtVerify(jws, createLocalJWKSet(jwks.body), {
      algorithms: ['EdDSA'],
      typ: 'sigil-gate-decision+jwt',
      issuer: t.app.config.publicUrl,
      audience: t.app.key.key.id,
      currentDate: new Date(decision.evaluatedAt * 1000),
    });
    expect(protectedHeader.kid).toBe(jwks.body.keys[0].kid);
    const { iss, iat, exp, aud, jti, ...claims } = payload;
    expect(claims).toStrictEqual(decision);
    expect([iat, exp, aud]).toEqual([decision.evaluatedAt, decision.validUntil, t.app.key.key.id]);
    expect(jti).toMatch(/^gd_/);
    // Another integrator trusting the same JWKS checks its own key id as the audience: this decision fails there.
    await expect(
      jwtVerify(jws, createLocalJWKSet(jwks.body), {
        algorithms: ['EdDSA'],
        audience: t.app.otherKey.key.id,
        currentDate: new Date(decision.evaluatedAt * 1000),
      }),
    ).rejects.toMatchObject({ claim: 'aud' });
  });

  it('a tampered decision does not verify', async () => {
    const res = await check({ subject: { wallet: wallet('heidi') }, policy: { 'handle.primary': {} }, sign: true });
    expect(res.body.decision).toBe('deny');
    const [header, payload, signature] = res.body.jws.split('.');
    const forged = Buffer.from(Buffer.from(payload, 'base64url').toString().replace('"deny"', '"allow"')).toString(
      'base64url',
    );
    const jwks = (await t.app.call('GET', '/.well-known/jwks.json')).body;
    await expect(
      jwtVerify(`${header}.${forged}.${signature}`, createLocalJWKSet(jwks), { algorithms: ['EdDSA'] }),
    ).rejects.toThrow(/signature/);
  });

  it('/openapi.json lists every Gate and keyed-reverse route with its error statuses', async () => {
    const doc = (await t.app.call('GET', '/openapi.json')).body;
    // The error statuses each route documents beyond the HTTP layer's own, which every operation declares (404, 405,
    // 408, 413, 417, 431, 500, and 415 where a body is taken: docs/http.md); the generator writes every success as 200.
    const layer = new Set(['404', '405', '408', '413', '415', '417', '431', '500']);
    const statuses = (path: string, method: string) =>
      Object.keys(doc.paths[path][method].responses)
        .filter((status) => !status.startsWith('2') && !layer.has(status))
        .sort();
    for (const [path, method] of [
      ['/v1/gate/check', 'post'],
      ['/v1/gate/policies/{id}', 'put'],
      ['/v1/reverse/{address}', 'get'],
    ])
      expect(Object.keys(doc.paths[path]![method].responses), `${method} ${path}`).toEqual(
        expect.arrayContaining(['404', '405', '408', '413', '417', '431', '500']),
      );
    expect(statuses('/v1/gate/check', 'post')).toEqual(['400', '401', '429', '501']);
    expect(JSON.stringify(doc.paths['/v1/gate/check'].post.responses['400'])).toContain('POLICY_TOO_DEEP');
    expect(statuses('/v1/gate/policies/{id}', 'put')).toEqual(['400', '401', '412', '428', '429']);
    expect(statuses('/v1/gate/policies/{id}', 'delete')).toEqual(['400', '401', '412', '429']);
    expect(statuses('/v1/gate/policies', 'post')).toEqual(['400', '401', '409', '429']);
    expect(statuses('/v1/reverse/{address}', 'get')).toContain('402');
    expect(statuses('/v1/reverse/batch', 'post')).toEqual(['400', '401', '429', '502']);
  });

  it('the policy language is published as JSON Schema', async () => {
    const res = await t.app.call('GET', '/v1/gate/policy.schema.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'Sigil Gate policy',
    });
  });
});

for (const dialect of DIALECTS) {
  const run = dialect === 'postgres' && !postgresReachable ? describe.skip : describe;
  run(`policies [${dialect}]`, () => {
    let store: KeyedApp;
    beforeAll(async () => {
      store = await startKeyedApp({ dialect, chain: t.app.chain });
    }, 60_000);
    afterAll(async () => {
      await store?.close();
    });
    const call = (
      method: string,
      path: string,
      body?: unknown,
      headers?: Record<string, string>,
      key = store.key.secret,
    ) => store.call(method, path, { key, body, headers });
    const policyA: PolicyNode = { all: [{ 'handle.primary': {} }, { attestation: { platform: 'x' } }] };
    const policyB: PolicyNode = { 'wallet.in': { list: ['11111111111111111111111111111111'] } };

    it('create → 201 with version 1, the hash as ETag; get and list show it; another account sees nothing', async () => {
      const created = await call('POST', '/v1/gate/policies', { name: 'members', policy: policyA });
      expect(created.status, show(created)).toBe(201);
      const hash = policyHash(policyA);
      expect(created.headers.get('etag')).toBe(`"${hash}"`);
      expect(created.body).toMatchObject({ name: 'members', version: 1, policyHash: hash, policy: policyA });
      expect(created.body).not.toHaveProperty('hash');
      expect(created.body.id).toMatch(/^gpol_/);
      // Unix seconds, like a decision's evaluatedAt and validUntil.
      const nowSec = Math.floor(Date.now() / 1000);
      expect(created.body.createdAt).toBeGreaterThan(nowSec - 600);
      expect(created.body.createdAt).toBeLessThanOrEqual(nowSec);
      expect(created.body.updatedAt).toBe(created.body.createdAt);
      const got = await call('GET', `/v1/gate/policies/${created.body.id}`);
      expect(got.status, show(got)).toBe(200);
      expect(got.body).toStrictEqual(created.body);
      expect(got.headers.get('etag')).toBe(`"${hash}"`);
      const list = await call('GET', '/v1/gate/policies');
      expect(list.body.policies.map((p: { id: string }) => p.id)).toContain(created.body.id);
      expect(list.body.policies[0]).not.toHaveProperty('policy');
      const foreign = await call(
        'GET',
        `/v1/gate/policies/${created.body.id}`,
        undefined,
        undefined,
        store.otherKey.secret,
      );
      expect(foreign.status, show(foreign)).toBe(404);
      expect(foreign.body.code).toBe('POLICY_NOT_FOUND');
      const foreignCheck = await store.call('POST', '/v1/gate/check', {
        key: store.otherKey.secret,
        body: { subject: { handle: 'alice' }, policyId: created.body.id },
      });
      expect(foreignCheck.status).toBe(404);
    });

    it('an inline policy and a stored one with the same hash decide the same', async () => {
      const created = await call('POST', '/v1/gate/policies', { policy: policyA });
      const subject = { wallet: wallet('alice') };
      const stored = await call('POST', '/v1/gate/check', { subject, policyId: created.body.id });
      const inline = await call('POST', '/v1/gate/check', { subject, policy: JSON.parse(JSON.stringify(policyA)) });
      expect(stored.status, show(stored)).toBe(200);
      expect(stored.body).toMatchObject({ policyId: created.body.id, version: 1, policyHash: inline.body.policyHash });
      expect(stored.body.decision).toBe(inline.body.decision);
      expect(stored.body.reasons.map((r: { result: unknown }) => r.result)).toEqual(
        inline.body.reasons.map((r: { result: unknown }) => r.result),
      );
    });

    it('replace needs If-Match (428), refuses a stale one (412), keeps every version', async () => {
      const created = await call('POST', '/v1/gate/policies', { policy: policyA });
      const path = `/v1/gate/policies/${created.body.id}`;
      const missing = await call('PUT', path, { policy: policyB });
      expect([missing.status, missing.body.code]).toEqual([428, 'PRECONDITION_REQUIRED']);
      const replaced = await call('PUT', path, { policy: policyB }, { 'if-match': created.headers.get('etag')! });
      expect(replaced.status, show(replaced)).toBe(200);
      expect(replaced.body).toMatchObject({ version: 2, policyHash: policyHash(policyB), policy: policyB });
      expect(replaced.headers.get('etag')).toBe(`"${policyHash(policyB)}"`);
      const stale = await call('PUT', path, { policy: policyA }, { 'if-match': created.headers.get('etag')! });
      expect([stale.status, stale.body.code]).toEqual([412, 'PRECONDITION_FAILED']);
      const v1 = await call('GET', `${path}?version=1`);
      expect(v1.body).toMatchObject({ version: 1, policy: policyA });
      const checkV1 = await call('POST', '/v1/gate/check', {
        subject: { handle: 'alice' },
        policyId: created.body.id,
        version: 1,
      });
      expect(checkV1.body).toMatchObject({ version: 1, policyHash: policyHash(policyA) });
      const noV3 = await call('GET', `${path}?version=3`);
      expect([noV3.status, noV3.body.code]).toEqual([404, 'POLICY_NOT_FOUND']);
    });

    it('two replaces with the same If-Match at once: exactly one wins, the other gets 412', async () => {
      const created = await call('POST', '/v1/gate/policies', { policy: policyA });
      const path = `/v1/gate/policies/${created.body.id}`;
      const etag = created.headers.get('etag')!;
      const variants = Array.from({ length: 6 }, (_, i) => ({
        'wallet.in': { list: [wallet(['alice', 'bob', 'carol', 'dave', 'erin', 'grace'][i]!)] },
      }));
      const answers = await Promise.all(variants.map((policy) => call('PUT', path, { policy }, { 'if-match': etag })));
      expect(answers.map((a) => a.status).sort()).toEqual([200, 412, 412, 412, 412, 412]);
      const winner = answers.find((a) => a.status === 200)!;
      const now = await call('GET', path);
      expect(now.body).toMatchObject({ version: 2, policyHash: winner.body.policyHash });
    });

    it('replacing with the current document writes no version; a stale If-Match is still 412', async () => {
      const created = await call('POST', '/v1/gate/policies', { policy: policyA });
      const path = `/v1/gate/policies/${created.body.id}`;
      const etag = created.headers.get('etag')!;
      const same = await call('PUT', path, { policy: policyA }, { 'if-match': etag });
      expect(same.status, show(same)).toBe(200);
      expect(same.body).toMatchObject({ version: 1, policyHash: policyHash(policyA) });
      await call('PUT', path, { policy: policyB }, { 'if-match': etag });
      const stale = await call('PUT', path, { policy: policyB }, { 'if-match': etag });
      expect([stale.status, stale.body.code]).toEqual([412, 'PRECONDITION_FAILED']);
    });

    it('delete → 204; then 404; If-Match on delete must match', async () => {
      const created = await call('POST', '/v1/gate/policies', { policy: policyB });
      const path = `/v1/gate/policies/${created.body.id}`;
      const wrong = await call('DELETE', path, undefined, { 'if-match': `"${'0'.repeat(64)}"` });
      expect([wrong.status, wrong.body.code]).toEqual([412, 'PRECONDITION_FAILED']);
      const gone = await call('DELETE', path, undefined, { 'if-match': created.headers.get('etag')! });
      expect(gone.status, show(gone)).toBe(204);
      const again = await call('DELETE', path);
      expect([again.status, again.body.code]).toEqual([404, 'POLICY_NOT_FOUND']);
    });

    it('a bad policy is refused on create with its code', async () => {
      const res = await call('POST', '/v1/gate/policies', { policy: { any: [] } });
      expect(res.status, show(res)).toBe(400);
      expect(res.body).toStrictEqual({ code: 'INVALID_POLICY', message: '/any: must be a non-empty list of nodes' });
    });
  });
}
