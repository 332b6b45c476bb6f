// The payment store failing is its own answer (503 METERING_UNAVAILABLE, nothing consumed): store work runs through
// `guarded`, which logs the cause and throws StoreDown for authorize to translate.
import type { X402Deps } from './deps';

export class StoreDown extends Error {}

export async function guarded<T>(deps: Pick<X402Deps, 'log'>, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    deps.log?.error({ err }, 'x402 payment store failed');
    throw new StoreDown();
  }
}
