// A write counter for the LiteSVM instance, so the ledger can cache reads (account snapshots, program-account
// scans) and know for certain when a cached answer may be stale. The instance is wrapped where it is created
// (core.ts): every method NOT in the read-only allowlist below counts as a write and bumps the generation, before
// and after it runs — transactions (CPIs included), setAccount, airdrop, setClock, warpToSlot, sysvar setters,
// program loading, and any method a future litesvm adds. Forgetting to list a read-only method only costs cache
// hits; it can never serve a stale answer.
import type { LiteSVM } from 'litesvm';

/** LiteSVM methods that only read state (checked against litesvm 1.5's dist/index.js). */
export const READ_ONLY_SVM_METHODS: ReadonlySet<string> = new Set([
  'getAccount',
  'getProgramAccounts',
  'getBalance',
  'latestBlockhash',
  'minimumBalanceForRentExemption',
  'getTransaction',
  'getClock',
  'getRent',
  'getEpochSchedule',
  'getEpochRewards',
  'getLastRestartSlot',
  'getSlotHashes',
  'getSlotHistory',
  'getStakeHistory',
]);

/** How many times the SVM state may have changed. Equal values = nothing was written in between. */
export class WriteGeneration {
  private n = 0;
  get value(): number {
    return this.n;
  }
  bump(): void {
    this.n++;
  }
}

const generations = new WeakMap<object, WriteGeneration>();

/**
 * Wraps the instance so that every non-read-only method call (and any property assignment) bumps its write
 * generation. Methods run on the real instance; `with*` builders return the wrapper. Idempotent.
 */
export function trackWrites(svm: LiteSVM): LiteSVM {
  if (generations.has(svm)) return svm;
  const generation = new WriteGeneration();
  const wrappers = new WeakMap<(...args: unknown[]) => unknown, (...args: unknown[]) => unknown>();
  const proxy: LiteSVM = new Proxy(svm, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function') return value;
      const method = value as (...args: unknown[]) => unknown;
      let wrapper = wrappers.get(method);
      if (!wrapper) {
        if (typeof key === 'string' && READ_ONLY_SVM_METHODS.has(key)) {
          wrapper = (...args) => method.apply(target, args);
        } else {
          wrapper = (...args) => {
            generation.bump();
            try {
              const result = method.apply(target, args);
              return result === target ? proxy : result;
            } finally {
              generation.bump();
            }
          };
        }
        wrappers.set(method, wrapper);
      }
      return wrapper;
    },
    set(target, key, value) {
      generation.bump();
      return Reflect.set(target, key, value, target);
    },
    defineProperty(target, key, descriptor) {
      generation.bump();
      return Reflect.defineProperty(target, key, descriptor);
    },
    deleteProperty(target, key) {
      generation.bump();
      return Reflect.deleteProperty(target, key);
    },
  });
  generations.set(proxy, generation);
  return proxy;
}

/** The write generation of an instance wrapped by trackWrites; throws for an unwrapped one (caching would be unsafe). */
export function writeGenerationOf(svm: LiteSVM): WriteGeneration {
  const generation = generations.get(svm);
  if (!generation) throw new Error('the LiteSVM instance is not wrapped by trackWrites(): its reads cannot be cached');
  return generation;
}
