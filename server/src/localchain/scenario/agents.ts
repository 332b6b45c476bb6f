// Scenario step: the demo agents, one per verification level and per reason a level is refused (docs/local-chain.md),
// their manifests and x402 endpoints served by the demo agent host. A new case is a new row of AGENT_CASES.
import type { Address, KeyPairSigner } from '@solana/kit';
import { caip2FromGenesisHash } from '@sigil/contract/x402';
import { WRAPPED_NATIVE_MINT } from '../../platform/config';
import type { DemoResponse } from '../agent-host';
import {
  attest,
  demoWallet,
  describe,
  handleAccount,
  register,
  revokeAttestation,
  setRecord,
  verifyEd25519,
  type Seed,
} from './seed';

interface AgentCase {
  description: string;
  level: 'L0' | 'L1' | 'L2';
  reason?: string;
  attestation: 'live' | 'revoked' | 'none';
  /** The manifest host's answer when it is not the manifest itself. */
  manifest?: DemoResponse;
  /** The x402 endpoint's answer when it is not a 402 paying the verified SOL address. */
  x402?: (env: AgentEnv) => DemoResponse;
}

/** What every agent shares: the chain's network, the verified pay-to wallet, another wallet, the x402 challenge. */
interface AgentEnv {
  origin: string;
  network: string;
  agentPay: KeyPairSigner;
  otherPay: KeyPairSigner;
  challenge: (payTo: Address) => DemoResponse;
}

const json = (status: number, body: unknown, headers: Record<string, string> = {}): DemoResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

const AGENT_CASES: Record<string, AgentCase> = {
  scout: {
    description: 'attested; its x402 endpoint answers 402 paying the verified SOL address',
    level: 'L2',
    attestation: 'live',
  },
  courier: {
    description: 'its manifest references no attestation',
    level: 'L0',
    reason: 'no-attestation',
    attestation: 'none',
  },
  relay: {
    description: 'its manifest references an attestation that was revoked',
    level: 'L0',
    reason: 'attestation-revoked',
    attestation: 'revoked',
  },
  broker: {
    description: 'attested; its x402 endpoint asks to pay another address',
    level: 'L1',
    reason: 'payto-mismatch',
    attestation: 'live',
    x402: ({ challenge, otherPay }) => challenge(otherPay.address),
  },
  nomad: {
    description: 'attested; its x402 endpoint closes the connection without answering',
    level: 'L1',
    reason: 'probe-unreachable',
    attestation: 'live',
    x402: () => ({ drop: true }),
  },
  mirror: {
    description: 'attested; its x402 endpoint redirects (redirects are not followed)',
    level: 'L1',
    reason: 'probe-redirect',
    attestation: 'live',
    x402: ({ origin }) => ({ status: 302, headers: { location: `${origin}/scout/x402` } }),
  },
  kiosk: {
    description: 'attested; its x402 endpoint answers 200 instead of a 402 challenge',
    level: 'L1',
    reason: 'probe-not-402',
    attestation: 'live',
    x402: () => json(200, { hello: 'free lunch' }),
  },
  ghost: {
    description: 'declared, but its manifest host closes the connection (GET /v1/agents answers 424)',
    level: 'L0',
    reason: 'manifest-unreachable',
    attestation: 'live',
    manifest: { drop: true },
  },
};

/** An x402 challenge of 5000 lamports of wrapped native to `payTo` on this chain. */
function challengeOn(network: string) {
  return (payTo: Address): DemoResponse => {
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
}

/** One agent on chain (scout is registered by its handle step) and its answers on the demo agent host. */
async function seedAgent(s: Seed, name: string, c: AgentCase, env: AgentEnv) {
  const { origin, network, agentPay } = env;
  const manifestUrl = `${origin}/${name}/manifest.json`;
  const account = await handleAccount(s, name);
  if (name !== 'scout') {
    await register(s, name, 'ivan', 3);
    await setRecord(s, 'ivan', name, 'text', 'agent.manifest', manifestUrl);
  }
  // The chain's pay-to authority: a SOL address record whose wallet signed its verification.
  await setRecord(s, 'ivan', name, 'address', 'SOL', agentPay.address);
  await verifyEd25519(s, 'ivan', name, 'SOL', agentPay);
  let attestation: Address | undefined;
  if (c.attestation !== 'none') {
    attestation = await attest(s, name, 'agent-audit', `${name}-audited`);
    if (c.attestation === 'revoked') await revokeAttestation(s, attestation);
  }
  const x402Url = `${origin}/${name}/x402`;
  s.agentRoutes[`/${name}/manifest.json`] =
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
  s.agentRoutes[`/${name}/x402`] = c.x402?.(env) ?? env.challenge(agentPay.address);
  s.seeded.agents[name] = {
    description: c.description,
    manifestUrl,
    level: c.level,
    ...(c.reason ? { reason: c.reason } : {}),
  };
}

export async function agents(s: Seed): Promise<void> {
  const agentPay = await demoWallet('agent-pay');
  const otherPay = await demoWallet('agent-other-pay');
  const network = caip2FromGenesisHash(s.core.genesisHash);
  const env = { origin: s.origin, network, agentPay, otherPay, challenge: challengeOn(network) };
  for (const [name, c] of Object.entries(AGENT_CASES)) await seedAgent(s, name, c, env);
  for (const name of Object.keys(s.seeded.agents)) {
    if (name !== 'scout')
      await describe(s, name, 'ivan', 'ivan', `Agent handle (type 3): ${s.seeded.agents[name]!.description}`);
  }
}
