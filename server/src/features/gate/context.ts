// What every Gate procedure shares: the caller from the key, and the error rows of the policy routes.
import { POLICY_LIMITS } from '@sigil/contract/gate';
import type { ApiKeyIdentity } from '../../trpc/context';
import type { ErrorRows } from '../../trpc/meta';
import { API_KEY_ERRORS } from '../../trpc/procedures';
import type { GateCaller } from './service';

export const callerOf = (key: ApiKeyIdentity): GateCaller => ({ keyId: key.id, account: key.account });

/** The policy document's own refusals (create, replace, an inline check). */
export const POLICY_ERRORS = {
  INVALID_POLICY: 'not a policy: the message names the first problem and its JSON Pointer',
  POLICY_TOO_DEEP: `nested deeper than ${POLICY_LIMITS.maxDepth}`,
  POLICY_TOO_LARGE: `over ${POLICY_LIMITS.maxNodes} nodes, ${POLICY_LIMITS.maxChildren} children, ${POLICY_LIMITS.maxWallets} wallets in a list, or ${POLICY_LIMITS.maxBytes} bytes`,
} as const satisfies ErrorRows;

export const POLICY_ID_ERRORS = {
  ...API_KEY_ERRORS,
  BAD_REQUEST: 'a malformed id or version',
  POLICY_NOT_FOUND: "no such policy (or version) in the key's account",
} as const satisfies ErrorRows;

/** The ETag of a policy version (its hash, quoted). */
export { etagOf } from './policies';
