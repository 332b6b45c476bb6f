// Gate policies: create, list, get, replace (If-Match), delete — owned by the calling key's account, versioned, each
// version content-hashed (docs/gate.md "Policies").
import type { Kysely } from 'kysely';
import { ApiError } from '@sigil/contract/errors';
import {
  canonicalBytes,
  MAX_POLICIES_PER_ACCOUNT,
  parsePolicy,
  policyHash,
  type PolicyNode,
  type PolicySummary,
  type StoredPolicy,
} from '@sigil/contract/gate';
import type { Database } from '../../platform/db/index';
import { prefixedId } from '../../platform/ids';
import {
  countPolicies,
  deletePolicy,
  findPolicyVersion,
  insertPolicy,
  listPolicies,
  replacePolicy,
  type PolicyRow,
} from './queries';

export interface PolicyDeps {
  db: Kysely<Database>;
  now: () => number;
}

const notFound = (id: string) => new ApiError('POLICY_NOT_FOUND', `no policy "${id.slice(0, 64)}" in this account`);

/** `"<hash>"` → the hash; a weak or malformed tag matches nothing (If-Match compares strongly, RFC 9110). */
export function etagOf(hash: string): string {
  return `"${hash}"`;
}

function hashOfTag(tag: string | undefined): string | undefined {
  const match = /^"([0-9a-f]{64})"$/.exec(tag?.trim() ?? '');
  return match?.[1];
}

/** The If-Match header a replace requires: absent → 428; present but not one of our tags → it matches nothing. */
export function requireIfMatch(header: string | string[] | undefined): string {
  if (header === undefined) {
    throw new ApiError('PRECONDITION_REQUIRED', 'send If-Match with the ETag of the version you are replacing');
  }
  return hashOfTag(Array.isArray(header) ? header[0] : header) ?? 'none';
}

/** Stored in epoch ms; answered in Unix seconds, the unit of a decision's times. */
const seconds = (ms: number) => Math.floor(ms / 1000);

function summary(row: PolicyRow): PolicySummary {
  return {
    id: row.id,
    name: row.name,
    version: row.version,
    policyHash: row.hash,
    createdAt: seconds(row.created_at),
    updatedAt: seconds(row.updated_at),
  };
}

/** The policy as stored: parsed, canonical JSON and hash. */
function prepare(raw: unknown): { policy: PolicyNode; body: string; hash: string } {
  const policy = parsePolicy(raw);
  return { policy, body: new TextDecoder().decode(canonicalBytes(policy)), hash: policyHash(policy) };
}

export async function createPolicy(
  deps: PolicyDeps,
  account: string,
  input: { name?: string; policy: unknown },
): Promise<StoredPolicy> {
  const { policy, body, hash } = prepare(input.policy);
  // Counted, then inserted: two racing creates may end one over the limit, which is harmless (the limit is a quota).
  if ((await countPolicies(deps.db, account)) >= MAX_POLICIES_PER_ACCOUNT) {
    throw new ApiError('LIMIT_REACHED', `an account keeps at most ${MAX_POLICIES_PER_ACCOUNT} policies`);
  }
  const now = deps.now();
  const row: PolicyRow = {
    id: prefixedId('gpol_', now),
    account,
    name: input.name ?? null,
    version: 1,
    hash,
    created_at: now,
    updated_at: now,
  };
  await insertPolicy(deps.db, row, body);
  return { ...summary(row), policy };
}

export async function listAccountPolicies(deps: PolicyDeps, account: string): Promise<{ policies: PolicySummary[] }> {
  return { policies: (await listPolicies(deps.db, account)).map(summary) };
}

export async function getPolicy(
  deps: PolicyDeps,
  account: string,
  id: string,
  version?: number,
): Promise<StoredPolicy> {
  const found = await findPolicyVersion(deps.db, account, id, version);
  if (!found) {
    if (version !== undefined && (await findPolicyVersion(deps.db, account, id))) {
      throw new ApiError('POLICY_NOT_FOUND', `policy "${id}" has no version ${version}`);
    }
    throw notFound(id);
  }
  return {
    ...summary(found.policy),
    version: found.version.version,
    policyHash: found.version.hash,
    updatedAt: seconds(found.version.created_at),
    policy: JSON.parse(found.version.body) as PolicyNode,
  };
}

const preconditionFailed = (current: PolicyRow) =>
  new ApiError(
    'PRECONDITION_FAILED',
    `If-Match does not match the current version (${current.version}, ETag ${etagOf(current.hash)})`,
  );

export async function replaceAccountPolicy(
  deps: PolicyDeps,
  account: string,
  input: { id: string; name?: string; policy: unknown; ifMatch: string },
): Promise<StoredPolicy> {
  const { body, hash } = prepare(input.policy);
  if (hash === input.ifMatch && input.name === undefined) {
    // The same document again changes nothing: no new version, so two identical replaces cannot both "win" one.
    const current = await findPolicyVersion(deps.db, account, input.id);
    if (!current) throw notFound(input.id);
    if (current.policy.hash !== input.ifMatch) throw preconditionFailed(current.policy);
    return getPolicy(deps, account, input.id);
  }
  const version = await replacePolicy(deps.db, { account, ...input, hash, body, now: deps.now() });
  if (version === null) {
    const current = await findPolicyVersion(deps.db, account, input.id);
    if (!current) throw notFound(input.id);
    throw preconditionFailed(current.policy);
  }
  return getPolicy(deps, account, input.id, version);
}

export async function deleteAccountPolicy(
  deps: PolicyDeps,
  account: string,
  id: string,
  ifMatchHeader: string | string[] | undefined,
): Promise<void> {
  const ifMatch = ifMatchHeader === undefined ? undefined : requireIfMatch(ifMatchHeader);
  if (await deletePolicy(deps.db, account, id, ifMatch)) return;
  if (ifMatch !== undefined && (await findPolicyVersion(deps.db, account, id))) {
    throw new ApiError('PRECONDITION_FAILED', 'If-Match does not match the current version');
  }
  throw notFound(id);
}
