// The facilitator rail's side of the 402 challenge: its entries (version 2 and version 1), built from Sigil's own
// quote with the facilitator's fee payer (from /supported, cached once read). docs/x402.md "Facilitator rail".
import { X402_MAX_TIMEOUT_SECONDS, X402_SCHEME, type X402FacilitatorEntry } from '@sigil/contract/x402';
import type { FacilitatorRail, RequestFacts, X402Deps } from './deps';
import { FacilitatorFailure, type FacilitatorClient } from './facilitator-client';

/** x402's version 1 names of the Solana networks its version 1 clients know (by CAIP-2 id). */
const V1_NETWORK_NAMES: Readonly<Record<string, string>> = {
  'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp': 'solana',
  'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1': 'solana-devnet',
};

/** The version 1 name of a CAIP-2 network, if version 1 clients have one for it. */
export function v1NetworkName(network: string): string | undefined {
  return V1_NETWORK_NAMES[network];
}

/** The fee payer lookups of /supported: one read, kept once it succeeded (a failed read is not kept). */
export function cachedFeePayers(client: FacilitatorClient): FacilitatorRail['feePayer'] {
  let supported: ReturnType<FacilitatorClient['supported']> | undefined;
  return async (x402Version, network) => {
    if (!supported) {
      supported = client.supported();
      supported.catch(() => (supported = undefined));
    }
    const { kinds } = await supported;
    const kind = kinds.find(
      (k) => k.x402Version === x402Version && k.scheme === X402_SCHEME && k.network === network && k.extra?.feePayer,
    );
    if (!kind) {
      throw new FacilitatorFailure(
        'error',
        `the facilitator does not settle exact payments on ${network} (v${x402Version})`,
      );
    }
    return kind.extra!.feePayer!;
  };
}

/** The facilitator's entries for a challenge: version 2 (CAIP-2) and, where one exists, version 1; null when down. */
export async function facilitatorEntries(
  deps: X402Deps,
  rail: FacilitatorRail,
  facts: RequestFacts,
  network: string,
): Promise<{ v2: X402FacilitatorEntry; v1?: X402FacilitatorEntry } | null> {
  try {
    const v2 = requirementsFor(deps, rail, facts, 2, network, await rail.feePayer(2, network));
    const name = v1NetworkName(network);
    const v1 = name ? requirementsFor(deps, rail, facts, 1, name, await rail.feePayer(1, name)) : undefined;
    return { v2, v1 };
  } catch (err) {
    // The native rail still sells: the challenge goes out without the facilitator's entry.
    deps.log?.warn({ err }, 'x402 facilitator /supported unreadable; challenge offers the native rail only');
    return null;
  }
}

/** What the facilitator judges a payment against: built from Sigil's own quote, never from the client's copy. */
export function requirementsFor(
  deps: X402Deps,
  rail: FacilitatorRail,
  facts: RequestFacts,
  x402Version: 1 | 2,
  network: string,
  feePayer: string,
): X402FacilitatorEntry {
  const amount = facts.amount.toString();
  const common: Pick<X402FacilitatorEntry, 'scheme' | 'network' | 'asset' | 'payTo' | 'maxAmountRequired'> = {
    scheme: X402_SCHEME,
    network,
    asset: deps.settings.asset,
    payTo: deps.settings.payTo,
    maxAmountRequired: amount,
  };
  if (x402Version === 2) {
    return { ...common, amount, maxTimeoutSeconds: X402_MAX_TIMEOUT_SECONDS, extra: { feePayer } };
  }
  return {
    ...common,
    maxTimeoutSeconds: X402_MAX_TIMEOUT_SECONDS,
    resource: rail.publicUrl + facts.target,
    description: `Sigil ${facts.priceClass}`,
    mimeType: 'application/json',
    extra: { feePayer },
  };
}

/** The paid resource of a version 2 challenge. */
export function resourceOf(rail: FacilitatorRail, facts: RequestFacts) {
  return { url: rail.publicUrl + facts.target, description: `Sigil ${facts.priceClass}`, mimeType: 'application/json' };
}
