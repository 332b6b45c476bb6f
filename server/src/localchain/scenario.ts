// The deterministic demo scenario, seeded by sending REAL transactions through the chain (so every account has
// history): named wallets from fixed seeds, handles covering every case of the public endpoints, domains, records,
// attestations, a token and invoices. Served as JSON at GET /scenario. Documented in docs/local-chain.md.
import { sha256 } from '@noble/hashes/sha2.js';
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createKeyPairSignerFromPrivateKeyBytes,
  createTransactionMessage,
  getAddressEncoder,
  getBase58Decoder,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  signTransaction,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Transaction,
} from '@solana/kit';
import { getCreateAccountInstruction } from '@solana-program/system';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getInitializeMint2Instruction,
  getMintToInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import {
  findAttestationPda,
  findDomainPda,
  findHandlePda,
  findInvoicePda,
  findNamespacePda,
  findPrimaryPointerPda,
  findRecordPda,
  getAttestInstruction,
  getCancelInvoiceInstruction,
  getCreateInvoiceInstruction,
  getCreateNamespaceInstruction,
  getPayInvoiceInstruction,
  getRegisterInstruction,
  getRegisterUnderNamespaceInstruction,
  getReleaseInstruction,
  getRevokeAttestationInstruction,
  getSetPrimaryInstruction,
  getSetRecordInstruction,
  getMarketInstruction,
  getTokenizeInstruction,
  MARKET_PDAS,
  getTransferInstruction,
  getVerifyRecordInstruction,
  SYSVAR_INSTRUCTIONS_ADDRESS,
} from '../platform/chain/registry';
import { SECP256K1_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS } from '../platform/chain/programs';
import { caip2FromGenesisHash } from '@sigil/contract/x402';
import { WRAPPED_NATIVE_MINT } from '../platform/config';
import type { DemoResponse } from './agent-host';
import type { ChainCore } from './core';
import type { ProcessResult } from './processor';
import { secp256k1Addresses, secp256k1ProofData, verifyRecordMessage } from './secp256k1';

export interface ScenarioWallet {
  address: Address;
  /** 64-byte keypair (32-byte seed + 32-byte public key) in base58. Local demo keys only. */
  secretKey: string;
}

export interface Scenario {
  rpcUrl: string;
  programId: Address;
  genesisHash: string;
  /** How wallet keys are derived: ed25519 seed = sha256(`sigil-demo:<name>`). */
  walletSeed: string;
  wallets: Record<string, ScenarioWallet>;
  /** secp256k1 keys behind the ETH/BTC records (private key = sha256(`sigil-demo-secp256k1:<name>`)). */
  foreignKeys: Record<string, { privateKeyHex: string; eth: string; btc: string }>;
  mints: Record<string, { address: Address; decimals: number; authority: string; tokenProgram: Address }>;
  handles: Record<string, { description: string; account: Address; owner: string; authority: string | null }>;
  domains: Record<string, { description: string; account: Address; owner: string }>;
  namespaces: Record<string, { account: Address; authority: string }>;
  invoices: Record<
    string,
    { description: string; account: Address; payee: string; id: number; status: 'open' | 'paid' | 'cancelled' }
  >;
  /**
   * The demo agents (docs/local-chain.md): name → what it shows, the level get_agent_manifest reaches and, when it
   * stops short of L2, the reason it gives for the next level.
   */
  agents: Record<string, { description: string; manifestUrl: string; level: 'L0' | 'L1' | 'L2'; reason?: string }>;
  /** Where the agents' manifests and x402 endpoints are served (the demo agent host): path → answer. */
  agentHost: { origin: string; routes: Record<string, DemoResponse> };
  /**
   * One handle in each market state (docs/registry-program.md § Market): state → the handle, the market account
   * (offer, listing, auction, voucher, lease) and what it shows.
   */
  market: Record<string, { description: string; handle: string; account: Address }>;
  /** Public-endpoint case → the name (resolve input) that covers it. */
  cases: Record<string, string>;
  /** Reverse-lookup case → the wallet address to look up. */
  reverse: Record<string, Address>;
}

export interface ScenarioDriver {
  send(tx: Transaction, options?: { skipPreflight?: boolean }): Promise<ProcessResult>;
  advance(n?: number): Promise<bigint>;
  url: string;
}

const WALLET_NAMES = [
  'registrar',
  'attester',
  'treasury',
  'alice',
  'aliceSol',
  'bob',
  'carol',
  'dave',
  'erin',
  'grace',
  'heidi',
  'ivan',
  'judy',
  'satoshi',
  'payer1',
  'payer2',
] as const;
type WalletName = (typeof WALLET_NAMES)[number];

const LAMPORTS = 1_000_000_000n;
const USDX_DECIMALS = 6;
const utf8 = (s: string) => new TextEncoder().encode(s);

export async function demoWallet(name: string): Promise<KeyPairSigner> {
  return createKeyPairSignerFromPrivateKeyBytes(sha256(utf8(`sigil-demo:${name}`)), true);
}

function secretKeyOf(name: string, address: Address): string {
  const bytes = new Uint8Array(64);
  bytes.set(sha256(utf8(`sigil-demo:${name}`)), 0);
  bytes.set(getAddressEncoder().encode(address), 32);
  return getBase58Decoder().decode(bytes);
}

export interface ScenarioOptions {
  /** The demo agent host's origin (`https://127.0.0.1:<port>`): the agents' `agent.manifest` records point there. */
  agentOrigin: string;
}

export async function seedScenario(
  core: ChainCore,
  driver: ScenarioDriver,
  options: ScenarioOptions,
): Promise<Scenario> {
  const programId = core.programId;
  const w = {} as Record<WalletName, KeyPairSigner>;
  for (const name of WALLET_NAMES) w[name] = await demoWallet(name);
  const mintSigners = { usdx: await demoWallet('mint:usdx'), vaultNft: await demoWallet('mint:vault-nft') };

  /** Signs with every signer, sends, and moves to the next slot so that each step has its own slot. */
  const exec = async (payer: KeyPairSigner, instructions: Instruction[], others: KeyPairSigner[] = []) => {
    const { blockhash, lastValidBlockHeight } = core.ledger.latestBlockhash('processed');
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayer(payer.address, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash, lastValidBlockHeight }, m),
      (m) => appendTransactionMessageInstructions(instructions, m),
    );
    const signers = [payer, ...others.filter((o) => o.address !== payer.address)];
    const tx = await signTransaction(
      signers.map((s) => s.keyPair),
      compileTransaction(message),
    );
    const result = await driver.send(tx);
    await driver.advance(1);
    return result;
  };

  // ---- wallets and a token ----------------------------------------------------------------------------------------
  for (const name of WALLET_NAMES) {
    await core.ledger.queue.run(() =>
      core.airdrop(w[name].address, name.startsWith('payer') ? 100n * LAMPORTS : 10n * LAMPORTS),
    );
  }
  await driver.advance(1);

  const usdx = mintSigners.usdx.address;
  const mintSize = 82n;
  await exec(
    w.treasury,
    [
      getCreateAccountInstruction({
        payer: w.treasury,
        newAccount: mintSigners.usdx,
        lamports: core.svm.minimumBalanceForRentExemption(mintSize),
        space: mintSize,
        programAddress: TOKEN_PROGRAM_ADDRESS,
      }),
      getInitializeMint2Instruction({
        mint: usdx,
        decimals: USDX_DECIMALS,
        mintAuthority: w.treasury.address,
        freezeAuthority: null,
      }),
    ],
    [mintSigners.usdx],
  );
  const ata = async (owner: Address, mint: Address) =>
    (await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }))[0];
  for (const holder of [w.payer1, w.payer2, w.alice]) {
    const account = await ata(holder.address, usdx);
    const amount = holder === w.alice ? 0n : 1000n * 10n ** BigInt(USDX_DECIMALS);
    await exec(w.treasury, [
      getCreateAssociatedTokenIdempotentInstruction({
        payer: w.treasury,
        ata: account,
        owner: holder.address,
        mint: usdx,
      }),
      ...(amount > 0n ? [getMintToInstruction({ mint: usdx, token: account, mintAuthority: w.treasury, amount })] : []),
    ]);
  }

  // ---- namespaces and domains -------------------------------------------------------------------------------------
  const namespaces: Scenario['namespaces'] = {};
  for (const tld of ['x1', 'xnt', 'xen']) {
    const [namespace] = await findNamespacePda(programId, tld);
    await exec(w.registrar, [
      getCreateNamespaceInstruction({ programId, authority: w.registrar.address, namespace, tld }),
    ]);
    namespaces[tld] = { account: namespace, authority: 'registrar' };
  }
  const domains: Scenario['domains'] = {};
  const registerDomain = async (label: string, tld: string, owner: WalletName, description: string) => {
    const namespace = namespaces[tld]!.account;
    const [domain] = await findDomainPda(programId, namespace, label);
    await exec(w[owner], [
      getRegisterUnderNamespaceInstruction({
        programId,
        payer: w[owner].address,
        owner: w[owner].address,
        namespace,
        domain,
        label,
      }),
    ]);
    domains[`${label}.${tld}`] = { description, account: domain, owner };
  };

  // ---- handles ----------------------------------------------------------------------------------------------------
  const handles: Scenario['handles'] = {};
  const handleAccount = async (name: string) => (await findHandlePda(programId, name))[0];
  const register = async (name: string, owner: WalletName, handleType = 0) => {
    const handle = await handleAccount(name);
    await exec(w[owner], [
      getRegisterInstruction({ programId, payer: w[owner].address, owner: w[owner].address, handle, name, handleType }),
    ]);
    return handle;
  };
  const setPrimary = async (wallet: WalletName, name: string) => {
    const handle = await handleAccount(name);
    const [primary] = await findPrimaryPointerPda(programId, w[wallet].address);
    await exec(w[wallet], [getSetPrimaryInstruction({ programId, wallet: w[wallet].address, handle, primary })]);
  };
  const setRecord = async (
    authority: WalletName,
    name: string,
    kind: 'address' | 'text',
    key: string,
    value: string,
  ) => {
    const handle = await handleAccount(name);
    const [record] = await findRecordPda(programId, handle, kind, key);
    await exec(w[authority], [
      getSetRecordInstruction({ programId, authority: w[authority].address, handle, record, kind, key, value }),
    ]);
    return record;
  };
  const verifyEd25519 = async (authority: WalletName, name: string, key: string, verifier: WalletName) => {
    const handle = await handleAccount(name);
    const [record] = await findRecordPda(programId, handle, 'address', key);
    await exec(
      w[authority],
      [
        getVerifyRecordInstruction({
          programId,
          authority: w[authority].address,
          handle,
          record,
          verifier: w[verifier].address,
        }),
      ],
      [w[verifier]],
    );
  };
  const foreignKeys: Scenario['foreignKeys'] = {};
  const secpKey = (name: string) => {
    const privateKey = sha256(utf8(`sigil-demo-secp256k1:${name}`));
    const addresses = secp256k1Addresses(privateKey);
    foreignKeys[name] = { privateKeyHex: Buffer.from(privateKey).toString('hex'), ...addresses };
    return { privateKey, ...addresses };
  };
  const verifySecp = async (authority: WalletName, name: string, key: 'ETH' | 'BTC', privateKey: Uint8Array) => {
    const handle = await handleAccount(name);
    const [record] = await findRecordPda(programId, handle, 'address', key);
    const proof: Instruction = {
      programAddress: SECP256K1_PROGRAM_ADDRESS,
      data: secp256k1ProofData(privateKey, utf8(verifyRecordMessage(record)), 0),
    };
    await exec(w[authority], [
      proof,
      getVerifyRecordInstruction({
        programId,
        authority: w[authority].address,
        handle,
        record,
        verifier: SYSVAR_INSTRUCTIONS_ADDRESS,
      }),
    ]);
  };
  const attest = async (name: string, platform: string, subject: string, expiresAt = 0) => {
    const handle = await handleAccount(name);
    const [attestation] = await findAttestationPda(programId, handle, platform);
    await exec(w.attester, [
      getAttestInstruction({
        programId,
        issuer: w.attester.address,
        handle,
        attestation,
        platform,
        subject,
        expiresAt,
      }),
    ]);
    return attestation;
  };
  const describe = async (name: string, owner: string, authority: string | null, description: string) => {
    handles[name] = { description, account: await handleAccount(name), owner, authority };
  };

  // alice: plain handle with primary; verified X1/SOL/ETH records, unverified BTC; live x + github attestations.
  const aliceKeys = secpKey('alice');
  await register('alice', 'alice');
  await setPrimary('alice', 'alice');
  await setRecord('alice', 'alice', 'address', 'X1', w.alice.address);
  await verifyEd25519('alice', 'alice', 'X1', 'alice');
  await setRecord('alice', 'alice', 'address', 'SOL', w.aliceSol.address);
  await verifyEd25519('alice', 'alice', 'SOL', 'aliceSol');
  await setRecord('alice', 'alice', 'address', 'ETH', aliceKeys.eth);
  await verifySecp('alice', 'alice', 'ETH', aliceKeys.privateKey);
  await setRecord('alice', 'alice', 'address', 'BTC', aliceKeys.btc);
  await setRecord('alice', 'alice', 'text', 'url', 'https://alice.example');
  await attest('alice', 'x', 'alice_onchain');
  await attest('alice', 'github', 'alice-dev');
  await describe(
    'alice',
    'alice',
    'alice',
    'plain handle with primary; X1/SOL/ETH verified, BTC unverified; x + github attestations',
  );

  // bob: the opposite verification states (X1/SOL/ETH unverified, BTC verified); revoked x, expired github.
  const bobKeys = secpKey('bob');
  await register('bob', 'bob');
  await setPrimary('bob', 'bob');
  await setRecord('bob', 'bob', 'address', 'X1', w.bob.address);
  await setRecord('bob', 'bob', 'address', 'SOL', w.aliceSol.address);
  await setRecord('bob', 'bob', 'address', 'ETH', bobKeys.eth);
  await setRecord('bob', 'bob', 'address', 'BTC', bobKeys.btc);
  await verifySecp('bob', 'bob', 'BTC', bobKeys.privateKey);
  const bobX = await attest('bob', 'x', 'bob_builds');
  await exec(w.attester, [
    getRevokeAttestationInstruction({ programId, issuer: w.attester.address, attestation: bobX }),
  ]);
  await attest('bob', 'github', 'bob-gh', core.ledger.blockTime(core.ledger.slot) - 86_400);
  await describe(
    'bob',
    'bob',
    'bob',
    'plain handle with primary; X1/SOL/ETH unverified, BTC verified; revoked x, expired github',
  );

  // vault: tokenized by carol, NFT now held by dave (recorded owner carol ≠ holder dave). Both set a primary:
  // carol's (set while she held authority) lost it; dave's counts.
  const vault = await register('vault', 'carol');
  await setPrimary('carol', 'vault');
  const vaultMint = mintSigners.vaultNft.address;
  const carolAta = await ata(w.carol.address, vaultMint);
  await exec(
    w.carol,
    [
      getTokenizeInstruction({
        programId,
        owner: w.carol.address,
        handle: vault,
        mint: vaultMint,
        ownerTokenAccount: carolAta,
      }),
    ],
    [mintSigners.vaultNft],
  );
  const daveAta = await ata(w.dave.address, vaultMint);
  await exec(w.carol, [
    getCreateAssociatedTokenIdempotentInstruction({
      payer: w.carol,
      ata: daveAta,
      owner: w.dave.address,
      mint: vaultMint,
    }),
    getTransferCheckedInstruction({
      source: carolAta,
      mint: vaultMint,
      destination: daveAta,
      authority: w.carol,
      amount: 1n,
      decimals: 0,
    }),
  ]);
  await setPrimary('dave', 'vault');
  await describe('vault', 'carol', 'dave', 'tokenized; NFT held by dave, recorded owner carol');

  // phoenix: erin set her primary, released the handle and registered it again (epoch 2): the pointer predates
  // the current registration although erin holds authority again.
  await register('phoenix', 'erin');
  await setPrimary('erin', 'phoenix');
  await exec(w.erin, [
    getReleaseInstruction({ programId, owner: w.erin.address, handle: await handleAccount('phoenix') }),
  ]);
  await register('phoenix', 'erin');
  await describe('phoenix', 'erin', 'erin', 're-registered (epoch 2); erin’s primary was set during epoch 1');

  // drift: grace set her primary, then transferred the handle to heidi: grace lost authority.
  await register('drift', 'grace');
  await setPrimary('grace', 'drift');
  await exec(w.grace, [
    getTransferInstruction({
      programId,
      owner: w.grace.address,
      handle: await handleAccount('drift'),
      newOwner: w.heidi.address,
    }),
  ]);
  await describe('drift', 'heidi', 'heidi', 'transferred from grace to heidi; grace’s primary still points here');

  // lapsed: judy set her primary, then released the handle: the pointer names a handle nobody holds.
  await register('lapsed', 'judy');
  await setPrimary('judy', 'lapsed');
  await exec(w.judy, [
    getReleaseInstruction({ programId, owner: w.judy.address, handle: await handleAccount('lapsed') }),
  ]);
  await describe('lapsed', 'judy', null, 'released by judy; judy’s primary still points at it');

  // scout: an Agent handle (handleType 3) with its manifest (on the demo agent host) and MCP endpoint.
  const origin = options.agentOrigin.replace(/\/+$/, '');
  await register('scout', 'ivan', 3);
  await setPrimary('ivan', 'scout');
  await setRecord('ivan', 'scout', 'text', 'agent.manifest', `${origin}/scout/manifest.json`);
  await setRecord('ivan', 'scout', 'text', 'agent.mcp', 'https://agents.example/scout/mcp');
  await setRecord('ivan', 'scout', 'address', 'X1', w.ivan.address);
  await describe('scout', 'ivan', 'ivan', 'Agent handle (type 3) with agent.manifest and agent.mcp');

  // satoshi: handle `satoshi`, dotted handle `satoshi.x1` and domain `satoshi.x1` → `@satoshi.x1` is ambiguous.
  await register('satoshi', 'satoshi');
  await register('satoshi.x1', 'satoshi');
  await describe(
    'satoshi',
    'satoshi',
    'satoshi',
    'plain handle, no primary; its owner also holds the domain satoshi.x1',
  );
  await describe(
    'satoshi.x1',
    'satoshi',
    'satoshi',
    'dotted handle that is also domain-shaped (see domain satoshi.x1)',
  );
  await registerDomain('satoshi', 'x1', 'satoshi', 'domain under x1; same text as handle @satoshi.x1');
  await registerDomain('forge', 'xnt', 'alice', 'domain under xnt owned by alice');
  await registerDomain('ember', 'xen', 'bob', 'domain under xen owned by bob');

  // ---- agents: one per verification level and per reason a level is refused (docs/local-chain.md) ----------------
  const agentPay = await demoWallet('agent-pay');
  const otherPay = await demoWallet('agent-other-pay');
  const network = caip2FromGenesisHash(core.genesisHash);
  const agents: Scenario['agents'] = {};
  const agentRoutes: Record<string, DemoResponse> = {};
  const json = (status: number, body: unknown, headers: Record<string, string> = {}): DemoResponse => ({
    status,
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const challenge = (payTo: Address): DemoResponse => {
    const body = {
      x402Version: 2,
      accepts: [
        {
          scheme: 'exact',
          network,
          asset: WRAPPED_NATIVE_MINT,
          payTo,
          amount: '5000',
          maxTimeoutSeconds: 60,
          extra: {}, // no payer binding: a probe sends no X-Payer
        },
      ],
    };
    return json(402, body, { 'payment-required': Buffer.from(JSON.stringify(body)).toString('base64') });
  };
  interface AgentCase {
    description: string;
    level: 'L0' | 'L1' | 'L2';
    reason?: string;
    attestation: 'live' | 'revoked' | 'none';
    manifest?: DemoResponse;
    x402?: DemoResponse;
  }
  const agentCase = async (name: string, c: AgentCase) => {
    const manifestUrl = `${origin}/${name}/manifest.json`;
    const account = await handleAccount(name);
    if (name !== 'scout') {
      await register(name, 'ivan', 3);
      await setRecord('ivan', name, 'text', 'agent.manifest', manifestUrl);
    }
    // The chain's pay-to authority: a SOL address record whose wallet signed its verification.
    await setRecord('ivan', name, 'address', 'SOL', agentPay.address);
    const [record] = await findRecordPda(programId, account, 'address', 'SOL');
    await exec(
      w.ivan,
      [
        getVerifyRecordInstruction({
          programId,
          authority: w.ivan.address,
          handle: account,
          record,
          verifier: agentPay.address,
        }),
      ],
      [agentPay],
    );
    let attestation: Address | undefined;
    if (c.attestation !== 'none') {
      attestation = await attest(name, 'agent-audit', `${name}-audited`);
      if (c.attestation === 'revoked') {
        await exec(w.attester, [
          getRevokeAttestationInstruction({ programId, issuer: w.attester.address, attestation }),
        ]);
      }
    }
    const x402Url = `${origin}/${name}/x402`;
    agentRoutes[`/${name}/manifest.json`] =
      c.manifest ??
      json(200, {
        sigil: { version: 1, name, network: 'testnet', handle: account },
        identity: { ...(attestation ? { attestation } : {}), description: `Demo agent @${name}: ${c.description}` },
        endpoints: [
          { type: 'mcp', url: `https://agents.example/${name}/mcp` },
          { type: 'x402', url: x402Url },
        ],
        payment: {
          addresses: [{ coinType: 501, address: agentPay.address, verified: true }],
          x402: { network, asset: WRAPPED_NATIVE_MINT, scheme: 'exact', facilitator: `${origin}/facilitator` },
        },
      });
    agentRoutes[`/${name}/x402`] = c.x402 ?? challenge(agentPay.address);
    agents[name] = {
      description: c.description,
      manifestUrl,
      level: c.level,
      ...(c.reason ? { reason: c.reason } : {}),
    };
  };
  await agentCase('scout', {
    description: 'attested; its x402 endpoint answers 402 paying the verified SOL address',
    level: 'L2',
    attestation: 'live',
  });
  await agentCase('courier', {
    description: 'its manifest references no attestation',
    level: 'L0',
    reason: 'no-attestation',
    attestation: 'none',
  });
  await agentCase('relay', {
    description: 'its manifest references an attestation that was revoked',
    level: 'L0',
    reason: 'attestation-revoked',
    attestation: 'revoked',
  });
  await agentCase('broker', {
    description: 'attested; its x402 endpoint asks to pay another address',
    level: 'L1',
    reason: 'payto-mismatch',
    attestation: 'live',
    x402: challenge(otherPay.address),
  });
  await agentCase('nomad', {
    description: 'attested; its x402 endpoint closes the connection without answering',
    level: 'L1',
    reason: 'probe-unreachable',
    attestation: 'live',
    x402: { drop: true },
  });
  await agentCase('mirror', {
    description: 'attested; its x402 endpoint redirects (redirects are not followed)',
    level: 'L1',
    reason: 'probe-redirect',
    attestation: 'live',
    x402: { status: 302, headers: { location: `${origin}/scout/x402` } },
  });
  await agentCase('kiosk', {
    description: 'attested; its x402 endpoint answers 200 instead of a 402 challenge',
    level: 'L1',
    reason: 'probe-not-402',
    attestation: 'live',
    x402: json(200, { hello: 'free lunch' }),
  });
  await agentCase('ghost', {
    description: 'declared, but its manifest host closes the connection (GET /v1/agents answers 424)',
    level: 'L0',
    reason: 'manifest-unreachable',
    attestation: 'live',
    manifest: { drop: true },
  });
  for (const name of Object.keys(agents)) {
    if (name !== 'scout') await describe(name, 'ivan', 'ivan', `Agent handle (type 3): ${agents[name]!.description}`);
  }

  // ---- invoices (payee alice) -------------------------------------------------------------------------------------
  const invoices: Scenario['invoices'] = {};
  const now = () => core.ledger.blockTime(core.ledger.slot);
  const createInvoice = async (
    key: string,
    id: bigint,
    amount: bigint,
    mint: Address | null,
    bound: boolean,
    memo: string,
    description: string,
  ) => {
    const [invoice] = await findInvoicePda(programId, w.alice.address, id);
    await exec(w.alice, [
      getCreateInvoiceInstruction({
        programId,
        payee: w.alice.address,
        invoice,
        mint,
        handle: bound ? await handleAccount('alice') : null,
        id,
        amount,
        expiresAt: now() + 30 * 86_400,
        memo,
      }),
    ]);
    invoices[key] = { description, account: invoice, payee: 'alice', id: Number(id), status: 'open' };
    return invoice;
  };
  await createInvoice('alice-1', 1n, LAMPORTS / 4n, null, true, 'Logo design', 'open, 0.25 native, bound to @alice');
  const paid = await createInvoice(
    'alice-2',
    2n,
    LAMPORTS / 10n,
    null,
    true,
    'Consulting call',
    'paid by payer1 in native tokens',
  );
  await exec(w.payer1, [
    getPayInvoiceInstruction({
      programId,
      kind: 'native',
      payer: w.payer1.address,
      invoice: paid,
      payee: w.alice.address,
    }),
  ]);
  invoices['alice-2']!.status = 'paid';
  const cancelled = await createInvoice('alice-3', 3n, LAMPORTS, null, false, 'Cancelled order', 'cancelled by alice');
  await exec(w.alice, [getCancelInvoiceInstruction({ programId, payee: w.alice.address, invoice: cancelled })]);
  invoices['alice-3']!.status = 'cancelled';
  await createInvoice('alice-4', 4n, 12_500_000n, usdx, false, 'Sticker pack', 'open, 12.5 USDX');
  const paidToken = await createInvoice('alice-5', 5n, 7_000_000n, usdx, true, 'T-shirt', 'paid by payer2 in USDX');
  await exec(w.payer2, [
    getPayInvoiceInstruction({
      programId,
      kind: 'token',
      payer: w.payer2.address,
      invoice: paidToken,
      payee: w.alice.address,
      payerTokenAccount: await ata(w.payer2.address, usdx),
      payeeTokenAccount: await ata(w.alice.address, usdx),
      mint: usdx,
    }),
  ]);
  invoices['alice-5']!.status = 'paid';

  // ---- the market: one handle in each state ------------------------------------------------------------------------
  const market: Scenario['market'] = {};
  const mk = <N extends Parameters<typeof getMarketInstruction>[1]>(
    name: N,
    args: Parameters<typeof getMarketInstruction<N>>[2],
    accounts: Parameters<typeof getMarketInstruction<N>>[3],
  ) => getMarketInstruction(programId, name, args, accounts);
  // bazaar (bob): an open offer of 0.5 native units by payer2.
  const bazaar = await register('bazaar', 'bob');
  const [offer] = await MARKET_PDAS.offer(programId, bazaar, w.payer2.address);
  await exec(w.payer2, [
    mk('make_offer', { amount: LAMPORTS / 2n }, { buyer: w.payer2.address, handle: bazaar, offer }),
  ]);
  market.offer = {
    description: 'open offer of 0.5 native units by payer2 on @bazaar (owner bob)',
    handle: 'bazaar',
    account: offer,
  };
  await describe('bazaar', 'bob', 'bob', 'plain handle with an open offer (market)');
  // exhibit (heidi): tokenized and listed at 2 native units; its NFT is frozen while listed.
  const exhibit = await register('exhibit', 'heidi');
  const exhibitMint = await demoWallet('mint:exhibit-nft');
  const exhibitAta = await ata(w.heidi.address, exhibitMint.address);
  await exec(
    w.heidi,
    [
      getTokenizeInstruction({
        programId,
        owner: w.heidi.address,
        handle: exhibit,
        mint: exhibitMint.address,
        ownerTokenAccount: exhibitAta,
      }),
    ],
    [exhibitMint],
  );
  const [listing] = await MARKET_PDAS.listing(programId, exhibit);
  await exec(w.heidi, [
    mk(
      'list_handle',
      { price: 2n * LAMPORTS },
      { seller: w.heidi.address, handle: exhibit, listing, sellerTokenAccount: exhibitAta },
    ),
  ]);
  market.listing = {
    description: 'tokenized @exhibit listed by heidi at 2 native units (NFT frozen)',
    handle: 'exhibit',
    account: listing,
  };
  await describe('exhibit', 'heidi', 'heidi', 'tokenized handle listed for sale (market)');
  // gavel (grace): a 7-day auction, reserve 1 native unit, with a bid of 1 native unit by payer1.
  const gavel = await register('gavel', 'grace');
  const [auction] = await MARKET_PDAS.auction(programId, gavel);
  await exec(w.grace, [
    mk(
      'create_auction',
      { reserve: LAMPORTS, duration: 7 * 86_400 },
      { seller: w.grace.address, handle: gavel, auction },
    ),
  ]);
  await exec(w.payer1, [
    mk(
      'place_bid',
      { amount: LAMPORTS },
      { bidder: w.payer1.address, handle: gavel, auction, previousBidder: w.payer1.address },
    ),
  ]);
  market.auction = {
    description: 'running 7-day auction of @gavel by grace, high bid 1 native unit by payer1',
    handle: 'gavel',
    account: auction,
  };
  await describe('gavel', 'grace', 'grace', 'plain handle at auction with a bid (market)');
  // ribbon (dave → erin): a pending gift; the voucher holds the handle for 30 days.
  const ribbon = await register('ribbon', 'dave');
  const [voucher] = await MARKET_PDAS.voucher(programId, w.dave.address, 1n);
  await exec(w.dave, [
    mk(
      'create_voucher',
      { id: 1n, expiresAt: now() + 30 * 86_400 },
      { creator: w.dave.address, handle: ribbon, voucher, recipient: w.erin.address },
    ),
  ]);
  market.gift = {
    description: 'pending gift of @ribbon from dave to erin (claimable for 30 days)',
    handle: 'ribbon',
    account: voucher,
  };
  await describe(
    'ribbon',
    'voucher',
    'voucher',
    'handle held by a pending gift (market): owned by the voucher account',
  );
  // tenant (payer2): lease-to-own, first instalment of 0.025 native units paid.
  const [tenant] = await findHandlePda(programId, 'tenant');
  const [lease] = await MARKET_PDAS.lease(programId, tenant);
  const [treasuryVault] = await MARKET_PDAS.treasury(programId);
  await exec(w.payer2, [
    mk(
      'start_lease',
      { name: 'tenant', firstPayment: 25_000_000n },
      { lessee: w.payer2.address, handle: tenant, lease, treasury: treasuryVault },
    ),
  ]);
  market.lease = {
    description: 'lease-to-own of @tenant by payer2, 0.025 of 0.1 native units paid',
    handle: 'tenant',
    account: lease,
  };
  await describe('tenant', 'payer2', 'payer2', 'handle leased to own, in progress (market)');

  // Everything above is finalized before anyone reads it.
  await driver.advance(Number(core.ledger.finalityLagSlots));

  const wallets: Scenario['wallets'] = {};
  for (const name of WALLET_NAMES)
    wallets[name] = { address: w[name].address, secretKey: secretKeyOf(name, w[name].address) };

  return {
    rpcUrl: driver.url,
    programId,
    genesisHash: core.genesisHash,
    walletSeed: 'ed25519 seed = sha256("sigil-demo:" + name)',
    wallets,
    foreignKeys,
    mints: {
      usdx: { address: usdx, decimals: USDX_DECIMALS, authority: 'treasury', tokenProgram: TOKEN_PROGRAM_ADDRESS },
    },
    handles,
    domains,
    namespaces,
    invoices,
    agents,
    agentHost: { origin, routes: agentRoutes },
    market,
    cases: {
      plainWithPrimary: 'alice',
      tokenizedHeldByOther: 'vault',
      primarySetBeforeRegistration: 'phoenix',
      primaryLostAuthority: 'drift',
      primaryHandleReleased: 'lapsed',
      agent: 'scout',
      agentL2: 'scout',
      agentNoAttestation: 'courier',
      agentAttestationRevoked: 'relay',
      agentPayToMismatch: 'broker',
      agentProbeUnreachable: 'nomad',
      agentProbeRedirect: 'mirror',
      agentProbeNot402: 'kiosk',
      agentManifestUnreachable: 'ghost',
      attestations: 'alice',
      revokedAndExpiredAttestations: 'bob',
      verifiedAddressRecords: 'alice',
      unverifiedAddressRecords: 'bob',
      domainX1: 'satoshi.x1',
      domainXnt: 'forge.xnt',
      domainXen: 'ember.xen',
      handleAndDomainShaped: '@satoshi.x1',
      handleWithoutPrimary: 'satoshi',
      unregistered: 'nobody',
      marketOffer: 'bazaar',
      marketListing: 'exhibit',
      marketAuction: 'gavel',
      marketGift: 'ribbon',
      marketLease: 'tenant',
    },
    reverse: {
      plainWithPrimary: w.alice.address,
      tokenizedHolder: w.dave.address,
      tokenizedOwnerLostAuthority: w.carol.address,
      primarySetBeforeRegistration: w.erin.address,
      primaryLostAuthority: w.grace.address,
      primaryHandleReleased: w.judy.address,
      agent: w.ivan.address,
      noPrimary: w.heidi.address,
    },
  };
}
