// Connect: challenges (issue, store, consume once), the three proofs (/verify, /verify-tx, /verify-signin), and the
// live session read. Procedures unpack and call these; every rule is written down in docs/connect.md.
//
// Order of a verify: load the challenge (CHALLENGE_NOT_FOUND / CHALLENGE_AUDIENCE_MISMATCH / CHALLENGE_EXPIRED),
// check the proof (CONTROL_PROOF_INVALID; a failed proof does NOT burn the challenge), then consume it with ONE
// conditional UPDATE whose row count decides: of N concurrent valid proofs exactly one wins, the rest get
// CHALLENGE_NOT_FOUND. Only then is a session issued.
//
// Each verb lives in its own file (challenge.ts, verify.ts, verify-tx.ts, verify-signin.ts, session-read.ts,
// housekeeping.ts) and takes the resolved ConnectDeps first; this factory only applies defaults and assembles.
import type { Kysely } from 'kysely';
import type {
  Challenge,
  ParsedChallengeRequest,
  Session,
  SessionRead,
  VerifyRequest,
  VerifySigninRequest,
  VerifyTxRequest,
} from '@sigil/contract/connect';
import type { ChainReader } from '../../platform/chain/types';
import { createDurabilityBarrier, type Database } from '../../platform/db/index';
import type { ResolveService } from '../resolve/index';
import { createChallenge } from './challenge';
import type { ConnectDeps } from './deps';
import { deleteExpiredChallenges } from './housekeeping';
import { openedSession, tokenSession, type OpenedSession, type SessionMaker } from './proof-steps';
import { readSession } from './session-read';
import type { SessionClaims, SessionService } from './sessions';
import { verifyProof } from './verify';
import { verifySiwsProof } from './verify-signin';
import { verifyTxProof } from './verify-tx';

/** Attestations are best-effort: a read slower than this is abandoned and the session says `verified: []`. */
export const ATTESTATION_READ_BUDGET_MS = 1_500;

export interface ConnectServiceDeps {
  db: Kysely<Database>;
  chain: ChainReader;
  /** Trusted-primary lookups (cached briefly; the live authority check happens at verify). */
  resolve: ResolveService;
  sessions: SessionService;
  challengeTtlSeconds: number;
  /** Domains a sign-in-with-Solana message may name. */
  signinDomains: readonly string[];
  /** Default ATTESTATION_READ_BUDGET_MS (tests shorten it). */
  attestationBudgetMs?: number;
  /** Default createDurabilityBarrier(db) (tests observe it). */
  durabilityBarrier?: () => Promise<void>;
  now?: () => number;
}

/** The three proofs, each ending in an `R`: a signed session (the REST verbs) or the session row alone. */
export interface ConnectProofs<R> {
  verify(audience: string, request: VerifyRequest): Promise<R>;
  verifyTx(audience: string, request: VerifyTxRequest): Promise<R>;
  /** `domains` narrows the hosts the message may name (default: the deployment's allowlist). */
  verifySignin(audience: string, request: VerifySigninRequest, domains?: readonly string[]): Promise<R>;
}

export interface ConnectService extends ConnectProofs<Session> {
  createChallenge(audience: string, request: ParsedChallengeRequest): Promise<Challenge>;
  /**
   * The same three proofs, ending in the session row alone (no token signed): for the OpenID Connect sign-in page,
   * whose Connect session is the row its grant names and whose browser never receives a Connect token.
   */
  proofs: ConnectProofs<OpenedSession>;
  /** The live view of a verified session (handle authority and attestations re-read). */
  readSession(session: SessionClaims): Promise<SessionRead>;
  /** Housekeeping: deletes challenges expired more than CHALLENGE_RETENTION_MS ago. */
  deleteExpiredChallenges(now?: number): Promise<number>;
}

export function createConnectService(options: ConnectServiceDeps): ConnectService {
  const deps: ConnectDeps = {
    db: options.db,
    chain: options.chain,
    resolve: options.resolve,
    sessions: options.sessions,
    challengeTtlSeconds: options.challengeTtlSeconds,
    signinDomains: options.signinDomains,
    attestationBudgetMs: options.attestationBudgetMs ?? ATTESTATION_READ_BUDGET_MS,
    durable: options.durabilityBarrier ?? createDurabilityBarrier(options.db),
    now: options.now ?? Date.now,
  };
  return {
    createChallenge: (audience, request) => createChallenge(deps, audience, request),
    ...proofsEndingIn(deps, tokenSession),
    proofs: proofsEndingIn(deps, openedSession),
    readSession: (session) => readSession(deps, session),
    deleteExpiredChallenges: (at = deps.now()) => deleteExpiredChallenges(deps, at),
  };
}

function proofsEndingIn<R>(deps: ConnectDeps, make: SessionMaker<R>): ConnectProofs<R> {
  return {
    verify: (audience, request) => verifyProof(deps, make, audience, request),
    verifyTx: (audience, request) => verifyTxProof(deps, make, audience, request),
    verifySignin: (audience, request, domains) => verifySiwsProof(deps, make, audience, request, domains),
  };
}
