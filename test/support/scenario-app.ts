// The keyed service over its own local chain with the demo scenario, for one test file: started before its tests,
// closed after them. Read the members inside tests and hooks (they exist from the file's beforeAll on).
import type { Address } from '@solana/kit';
import { afterAll, beforeAll } from 'vitest';
import type { LocalChain, Scenario } from '../../server/src/localchain/index';
import { startKeyedApp, type KeyedApp } from './keyed-app';

export interface ScenarioApp {
  readonly app: KeyedApp;
  readonly scenario: Scenario;
  /** A scenario wallet's address by its name (alice, bob, …). */
  wallet(name: string): Address;
}

export function useScenarioApp(): ScenarioApp {
  const ctx = {
    wallet: (name: string) => ctx.scenario.wallets[name]!.address,
  } as { app: KeyedApp; scenario: Scenario; wallet(name: string): Address };
  beforeAll(async () => {
    ctx.app = await startKeyedApp({ dialect: 'sqlite' });
    ctx.scenario = ctx.app.chain.scenario!;
  }, 60_000);
  afterAll(async () => {
    await ctx.app?.close();
  });
  return ctx;
}

/** Runs `run` while the chain's RPC fails as `faults` says (unreachable unless told), then clears the faults. */
export async function withFaults<T>(
  chain: Pick<LocalChain, 'faults'>,
  run: () => Promise<T>,
  faults: Parameters<LocalChain['faults']['set']>[0] = { unreachable: true },
): Promise<T> {
  chain.faults.set(faults);
  try {
    return await run();
  } finally {
    chain.faults.clear();
  }
}
