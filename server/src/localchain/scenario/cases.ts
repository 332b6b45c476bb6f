// Which seeded name or wallet covers each case of the public endpoints (the scenario's `cases` and `reverse`).
import type { Address, KeyPairSigner } from '@solana/kit';
import type { WalletName } from './seed';

/** Public-endpoint case → the name (resolve input) that covers it. */
export const SCENARIO_CASES: Record<string, string> = {
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
};

/** Reverse-lookup case → the wallet to look up. */
const REVERSE_CASES: Record<string, WalletName> = {
  plainWithPrimary: 'alice',
  tokenizedHolder: 'dave',
  tokenizedOwnerLostAuthority: 'carol',
  primarySetBeforeRegistration: 'erin',
  primaryLostAuthority: 'grace',
  primaryHandleReleased: 'judy',
  agent: 'ivan',
  noPrimary: 'heidi',
};

export function reverseCases(w: Record<WalletName, KeyPairSigner>): Record<string, Address> {
  return Object.fromEntries(Object.entries(REVERSE_CASES).map(([name, wallet]) => [name, w[wallet].address]));
}
