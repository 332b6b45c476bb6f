// The deterministic demo scenario, seeded by sending REAL transactions through the chain (so every account has
// history): named wallets from fixed seeds, handles covering every case of the public endpoints, domains, records,
// attestations, a token and invoices. Served as JSON at GET /scenario. Documented in docs/local-chain.md.
import { TOKEN_PROGRAM_ADDRESS } from '../platform/chain/programs';
import type { ChainCore } from './core';
import { reverseCases, SCENARIO_CASES } from './scenario/cases';
import { createSeed, secretKeyOf, USDX_DECIMALS, WALLET_NAMES } from './scenario/seed';
import { SCENARIO_STEPS } from './scenario/steps';
import type { Scenario, ScenarioDriver, ScenarioOptions } from './scenario/types';

export { demoWallet } from './scenario/seed';
export type { Scenario } from './scenario/types';

/** Runs every step of scenario/steps.ts in order, lets it all finalize, and describes what was seeded. */
export async function seedScenario(
  core: ChainCore,
  driver: ScenarioDriver,
  options: ScenarioOptions,
): Promise<Scenario> {
  const s = await createSeed(core, driver, options.agentOrigin);
  for (const step of SCENARIO_STEPS) await step(s);

  // Everything above is finalized before anyone reads it.
  await driver.advance(Number(core.ledger.finalityLagSlots));

  const wallets: Scenario['wallets'] = {};
  for (const name of WALLET_NAMES)
    wallets[name] = { address: s.w[name].address, secretKey: secretKeyOf(name, s.w[name].address) };
  const { seeded } = s;
  return {
    rpcUrl: driver.url,
    programId: s.programId,
    genesisHash: core.genesisHash,
    walletSeed: 'ed25519 seed = sha256("sigil-demo:" + name)',
    wallets,
    foreignKeys: seeded.foreignKeys,
    mints: {
      usdx: {
        address: s.mintSigners.usdx.address,
        decimals: USDX_DECIMALS,
        authority: 'treasury',
        tokenProgram: TOKEN_PROGRAM_ADDRESS,
      },
    },
    handles: seeded.handles,
    domains: seeded.domains,
    namespaces: seeded.namespaces,
    invoices: seeded.invoices,
    agents: seeded.agents,
    agentHost: { origin: s.origin, routes: s.agentRoutes },
    market: seeded.market,
    cases: { ...SCENARIO_CASES },
    reverse: reverseCases(s.w),
  };
}
