// What the Connect proof procedures share: the codes every verify path may answer.
import type { ErrorRows } from '../../trpc/meta';

export const PROOF_ERRORS = {
  CONTROL_PROOF_INVALID: 'the signature does not prove control of the handle or wallet',
  CHALLENGE_NOT_FOUND: 'unknown or already used nonce',
  CHALLENGE_EXPIRED: '',
  CHALLENGE_AUDIENCE_MISMATCH: 'the challenge was issued to another key',
} as const satisfies ErrorRows;
