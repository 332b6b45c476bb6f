// POST /privy/wallet (docs/privy.md): what Privy asserts (this user linked these Solana wallets) joined with what the
// chain says of each wallet (its trusted primary handle, that handle's live attestations). Nothing here is a proof
// of wallet control to Sigil, so nothing a signature would grant (a Connect session) ever comes out of it.
import type { Address } from '@solana/kit';
import { PublicError } from '@sigil/contract/errors';
import { MAX_PRIVY_WALLETS, type PrivyWalletResult } from '@sigil/contract/privy';
import { isAttestationLive } from '../../platform/chain/trust-rules';
import { ChainError, type ChainReader, type HandleAccount } from '../../platform/chain/types';
import type { ReverseService } from '../reverse/index';
import { createPrivyVerifier } from './verify';

export interface PrivyService {
  /** POST /privy/wallet */
  wallet(identityToken: string): Promise<PrivyWalletResult>;
}

export interface PrivyDeps {
  /** Unset: every call answers 501 not configured. */
  settings: { appId: string; verificationKey: string } | undefined;
  chain: ChainReader;
  reverse: ReverseService;
  now?: () => number;
}

/** Slugs of the handle's live attestations issued under its current registration (a previous owner's do not count). */
async function liveSlugs(chain: ChainReader, handle: HandleAccount, nowSec: number): Promise<string[]> {
  const attestations = await chain.getAttestations(handle.address, 'confirmed');
  const slugs = attestations
    .filter((a) => a.handle === handle.address && a.issuedAt >= handle.registeredAt && isAttestationLive(a, nowSec))
    .map((a) => a.platform);
  return [...new Set(slugs)].sort();
}

export function createPrivyService(deps: PrivyDeps): PrivyService {
  const verifier = deps.settings ? createPrivyVerifier(deps.settings) : undefined;
  const now = deps.now ?? Date.now;
  return {
    async wallet(identityToken) {
      if (!verifier) throw new PublicError('NOT_CONFIGURED');
      const identity = await verifier.verify(identityToken);
      const listed = identity.wallets.slice(0, MAX_PRIVY_WALLETS);
      const { verdicts, slot } = await deps.reverse.explain(listed.map((w) => w.address as Address));
      const nowSec = Math.floor(now() / 1000);
      const wallets = await Promise.all(
        listed.map(async ({ address, embedded }) => {
          const verdict = verdicts.get(address as Address)!;
          if (verdict instanceof ChainError) throw verdict;
          const attestations = verdict.handle ? await liveSlugs(deps.chain, verdict.handle, nowSec) : [];
          return { address, embedded, handle: verdict.result.handle, attestations };
        }),
      );
      return { user: identity.user, wallets, slot: Number(slot) };
    },
  };
}
