// Key secrets: `sigil_sk_` + base58(32 random bytes) = 256 bits of randomness (≥ 128 is the floor).
// Only SHA-256(secret) is stored. A slow password hash (bcrypt, scrypt, argon2) protects LOW-entropy secrets
// from offline guessing; these secrets are random, so even a stolen hash table cannot be searched (2^256), and
// a fast hash keeps per-request authentication at microseconds instead of ~100 ms of deliberate work, which
// would also be a denial-of-service lever. See docs/keys.md.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { base58 } from '@scure/base';
import { SECRET_DISPLAY_LENGTH, SECRET_PREFIX } from '@sigil/contract/keys';

export const SECRET_RANDOM_BYTES = 32;
/** Fewest random bytes we accept in a secret given to us (SIGIL_PORTAL_KEY): 128 bits. */
export const MIN_SECRET_RANDOM_BYTES = 16;
/** Longest secret we bother hashing; anything longer is not ours (bounds work on hostile headers). */
export const MAX_SECRET_LENGTH = 128;

export function generateSecret(): string {
  return SECRET_PREFIX + base58.encode(randomBytes(SECRET_RANDOM_BYTES));
}

/** hex SHA-256 of the secret's UTF-8 bytes: what `api_keys.secret_hash` holds. */
export function hashSecret(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/** The first characters, stored for display so an owner can tell keys apart. */
export function displayPrefix(secret: string): string {
  return secret.slice(0, SECRET_DISPLAY_LENGTH);
}

/**
 * Cheap shape check before touching the database: our prefix, bounded length. Anything else cannot be a key
 * we issued, so it is refused without a query.
 */
export function looksLikeSecret(secret: string): boolean {
  return secret.length > SECRET_PREFIX.length && secret.length <= MAX_SECRET_LENGTH && secret.startsWith(SECRET_PREFIX);
}

/**
 * A secret an operator supplies (SIGIL_PORTAL_KEY) must be as strong as ours: our prefix + base58 of at
 * least 16 bytes. Returns a reason when it is not.
 */
export function weakSecretReason(secret: string): string | undefined {
  if (!looksLikeSecret(secret))
    return `must start with ${SECRET_PREFIX} and be at most ${MAX_SECRET_LENGTH} characters`;
  let bytes: Uint8Array;
  try {
    bytes = base58.decode(secret.slice(SECRET_PREFIX.length));
  } catch {
    return `must be ${SECRET_PREFIX} followed by base58`;
  }
  if (bytes.length < MIN_SECRET_RANDOM_BYTES)
    return `must carry at least ${MIN_SECRET_RANDOM_BYTES} random bytes (base58)`;
  return undefined;
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && left.length > 0 && timingSafeEqual(left, right);
}
