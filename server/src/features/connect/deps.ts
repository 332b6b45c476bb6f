// What every Connect verb takes first: the service's dependencies with their defaults applied (service.ts resolves
// them once), and the shape of a stored challenge.
import type { Kysely, Selectable } from 'kysely';
import type { ChainReader } from '../../platform/chain/types';
import type { ConnectChallengesTable, Database } from '../../platform/db/index';
import type { ResolveService } from '../resolve/index';
import type { SessionService } from './sessions';

export type ChallengeRow = Selectable<ConnectChallengesTable>;

export interface ConnectDeps {
  db: Kysely<Database>;
  chain: ChainReader;
  /** Trusted-primary lookups (cached briefly; the live authority check happens at verify). */
  resolve: ResolveService;
  sessions: SessionService;
  challengeTtlSeconds: number;
  /** Domains a sign-in-with-Solana message may name. */
  signinDomains: readonly string[];
  /** How long a best-effort attestation read may take before the session says `verified: []`. */
  attestationBudgetMs: number;
  /** Resolves once every write committed so far is on disk (the consume waits for it). */
  durable: () => Promise<void>;
  now: () => number;
}
