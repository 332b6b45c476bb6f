// The sign-in page's script helpers as the browser runs them: PAGE_HELPERS (server/src/features/oidc/page.ts) is
// plain JavaScript, evaluated here once so that unit tests call the exact text the page ships.
import { PAGE_HELPERS } from '../../server/src/features/oidc/page';

/** The interaction base a sign-in page posts its steps to: its script's CONFIG.base, read from the page's HTML. */
export function pageBaseOf(html: string): string | undefined {
  return /"base":"(\/oidc\/interaction\/[^"]+)"/.exec(html)?.[1];
}

interface Challenge {
  nonce?: unknown;
  challenge?: unknown;
  audience?: unknown;
  memo?: unknown;
}

export interface PageHelpers {
  base58(bytes: Uint8Array): string;
  base64(bytes: Uint8Array): string;
  shortVec(n: number): number[];
  memoTransaction(walletKey: Uint8Array, memoProgramKey: Uint8Array, memo: string): Uint8Array;
  proofMethods(
    wallet: { chains?: readonly string[]; features?: Record<string, unknown> },
    methods: string[][],
  ): string[];
  bindingProblem(method: string, challenge: Challenge | null, audience: string, address: string): string | null;
  signInProblem(signedMessage: Uint8Array, host: string, address: string, nonce: string): string | null;
}

export const pageHelpers = new Function(
  `${PAGE_HELPERS}\nreturn { base58, base64, shortVec, memoTransaction, proofMethods, bindingProblem, signInProblem };`,
)() as PageHelpers;
