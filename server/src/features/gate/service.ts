// Gate: policies of an account and checks of a subject against one (docs/gate.md). The check's verbs live in
// check.ts, the policies' in policies.ts, signing in signing.ts; this file wires them for the procedures.
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import {
  parsePolicy,
  policyHash,
  type GateCheckResult,
  type PolicyNode,
  type PolicySummary,
  type StoredPolicy,
} from '@sigil/contract/gate';
import type { ChainReader } from '../../platform/chain/types';
import type { Database } from '../../platform/db/index';
import type { AgentService } from '../agents/index';
import type { SessionService } from '../connect/index';
import type { ReverseService } from '../reverse/index';
import { checkPolicy, type CheckDeps } from './check';
import {
  createPolicy,
  deleteAccountPolicy,
  getPolicy,
  listAccountPolicies,
  replaceAccountPolicy,
  requireIfMatch,
  type PolicyDeps,
} from './policies';
import { createDecisionSigner, type DecisionSigner } from './signing';

/** Who is calling: the key's id (a session subject must be issued to it) and its account (owner of policies). */
export interface GateCaller {
  keyId: string;
  account: string;
}

export interface GateCheckInput {
  subject: unknown;
  policyId?: string;
  version?: number;
  policy?: unknown;
  sign?: boolean;
}

export interface GateService {
  check(caller: GateCaller, input: GateCheckInput): Promise<GateCheckResult>;
  createPolicy(caller: GateCaller, input: { name?: string; policy: unknown }): Promise<StoredPolicy>;
  listPolicies(caller: GateCaller): Promise<{ policies: PolicySummary[] }>;
  getPolicy(caller: GateCaller, id: string, version?: number): Promise<StoredPolicy>;
  replacePolicy(
    caller: GateCaller,
    input: { id: string; name?: string; policy: unknown },
    ifMatch: string | string[] | undefined,
  ): Promise<StoredPolicy>;
  deletePolicy(caller: GateCaller, id: string, ifMatch: string | string[] | undefined): Promise<void>;
  jwks(): ReturnType<DecisionSigner['jwks']>;
}

export interface GateServiceDeps {
  db: Kysely<Database>;
  chain: ChainReader;
  reverse: ReverseService;
  /** agent.level L1 / L2: the agents feature, holding the hardened outbound client (manifests, x402 probes). */
  agents: Pick<AgentService, 'level'>;
  sessions: Pick<SessionService, 'verify'>;
  suffixes: readonly string[];
  signingSeed?: string;
  production: boolean;
  issuer: string;
  now?: () => number;
}

export function createGateService(deps: GateServiceDeps): GateService {
  const now = deps.now ?? Date.now;
  const policies: PolicyDeps = { db: deps.db, now };
  const checks: CheckDeps = { ...deps, now };
  const signer = createDecisionSigner({
    db: deps.db,
    seed: deps.signingSeed,
    production: deps.production,
    issuer: deps.issuer,
  });
  return {
    check: (caller, input) => check(checks, policies, signer, caller, input),
    createPolicy: (caller, input) => createPolicy(policies, caller.account, input),
    listPolicies: (caller) => listAccountPolicies(policies, caller.account),
    getPolicy: (caller, id, version) => getPolicy(policies, caller.account, id, version),
    replacePolicy: (caller, input, ifMatch) =>
      replaceAccountPolicy(policies, caller.account, { ...input, ifMatch: requireIfMatch(ifMatch) }),
    deletePolicy: (caller, id, ifMatch) => deleteAccountPolicy(policies, caller.account, id, ifMatch),
    jwks: () => signer.jwks(),
  };
}

/** The policy a check names: a stored one of the caller's account (a version of it), or the inline one. */
async function policyOf(
  policies: PolicyDeps,
  caller: GateCaller,
  input: GateCheckInput,
): Promise<{ policy: PolicyNode; policyId?: string; version?: number }> {
  const stored = input.policyId !== undefined;
  if (stored === (input.policy !== undefined)) {
    throw new ApiError('INVALID_POLICY', 'send exactly one of policyId and policy');
  }
  if (!stored) {
    if (input.version !== undefined) throw new ApiError('INVALID_POLICY', 'version goes with policyId');
    return { policy: parsePolicy(input.policy) };
  }
  const found = await getPolicy(policies, caller.account, input.policyId!, input.version);
  return { policy: found.policy as PolicyNode, policyId: found.id, version: found.version };
}

async function check(
  deps: CheckDeps,
  policies: PolicyDeps,
  signer: DecisionSigner,
  caller: GateCaller,
  input: GateCheckInput,
): Promise<GateCheckResult> {
  const { policy, policyId, version } = await policyOf(policies, caller, input);
  const evaluated = await checkPolicy(deps, { subject: input.subject, audience: caller.keyId, policy });
  const decision = {
    decision: evaluated.decision,
    ...(policyId === undefined ? {} : { policyId, version }),
    policyHash: policyHash(policy),
    subject: evaluated.subject,
    slot: evaluated.slot,
    evaluatedAt: evaluated.evaluatedAt,
    validUntil: evaluated.validUntil,
    reasons: evaluated.reasons,
  };
  return input.sign ? { ...decision, jws: await signer.sign(decision, caller.keyId) } : decision;
}
