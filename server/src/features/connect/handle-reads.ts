// The chain reads behind Connect: the live handle, its authority, the wallet's trusted primary, and the handle's
// attestations (best-effort: a slow or failed attestation read never blocks sign-in).
import type { AttestationAccount, HandleAccount } from '../../platform/chain/types';
import { isAttestationLive, isHandleReleased } from '../../platform/chain/trust-rules';
import type { ConnectDeps } from './deps';

/** The live, registered handle, or null (never registered, or released). */
export async function liveHandle(deps: ConnectDeps, name: string): Promise<HandleAccount | null> {
  const { value } = await deps.chain.getHandle(name, 'confirmed');
  return value && !isHandleReleased(value) ? value : null;
}

/**
 * The wallet's trusted primary handle account (docs/names.md trust rules), or null. One read chain (pointer →
 * handle → authority), shared with /reverse and its short cache: the account is not re-read by name after.
 */
export function primaryOf(deps: ConnectDeps, wallet: string): Promise<HandleAccount | null> {
  return deps.resolve.primaryHandle(wallet);
}

/** Current authority of `handle` if it is `wallet`: its source; else null. Chain failures propagate (502). */
export async function controlOf(
  deps: ConnectDeps,
  handle: HandleAccount,
  wallet: string,
): Promise<'owner' | 'nft-holder' | null> {
  const authority = await deps.chain.getHandleAuthority(handle, 'confirmed');
  return authority.authority !== null && authority.authority === wallet ? authority.source : null;
}

/** Slugs of the handle's live attestations; [] when the read fails or is slow (never blocks sign-in). */
export async function verifiedSlugs(deps: ConnectDeps, handle: HandleAccount): Promise<string[]> {
  const budget = attestationBudget(deps);
  try {
    const attestations = await Promise.race([deps.chain.getAttestations(handle.address, 'confirmed'), budget.expired]);
    return attestations ? slugsOf(deps, handle, attestations) : [];
  } catch {
    return [];
  } finally {
    budget.cancel();
  }
}

/**
 * The live handle and its verified slugs in ONE batched chain request (both are needed at verify and at every
 * session read). The handle read is required; the attestations stay best-effort. Whenever the batch does not
 * deliver in time — it fails as a whole (an HTTP error, a node that refuses batches, a timeout the slow scan
 * caused) or outlasts the attestation budget (a node slow on the scan holds the whole batch) — the handle is
 * re-read alone, whose failure is the 502 it always was, and the slugs are [].
 */
export async function liveHandleAndSlugs(
  deps: ConnectDeps,
  name: string,
): Promise<{ handle: HandleAccount | null; verified: string[] }> {
  const budget = attestationBudget(deps);
  const batched = deps.chain.getHandleWithAttestations(name, 'confirmed');
  try {
    const read = await Promise.race([batched, budget.expired]).catch(() => null);
    if (!read) {
      batched.catch(() => undefined); // abandoned: its late outcome must not surface as an unhandled rejection
      return { handle: await liveHandle(deps, name), verified: [] };
    }
    const handle = read.handle.value && !isHandleReleased(read.handle.value) ? read.handle.value : null;
    return { handle, verified: handle && read.attestations ? slugsOf(deps, handle, read.attestations) : [] };
  } finally {
    budget.cancel();
  }
}

/** Slugs of the handle's live attestations in `attestations` (issued under its current registration, unexpired). */
function slugsOf(deps: ConnectDeps, handle: HandleAccount, attestations: readonly AttestationAccount[]): string[] {
  const nowSec = Math.floor(deps.now() / 1000);
  const slugs = attestations
    // Issued under the handle's current registration: an attestation from a previous owner does not carry over.
    .filter((a) => a.handle === handle.address && a.issuedAt >= handle.registeredAt && isAttestationLive(a, nowSec))
    .map((a) => a.platform);
  return [...new Set(slugs)].sort();
}

/** Resolves to null once the attestation budget has passed (so a slow read never blocks sign-in). */
function attestationBudget(deps: ConnectDeps): { expired: Promise<null>; cancel: () => void } {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), deps.attestationBudgetMs);
  });
  return { expired, cancel: () => clearTimeout(timer) };
}
