// The name grammar: normalization, handle and domain shapes, and classification (docs/names.md).
// Pure functions, no I/O. Every function that depends on the served TLDs takes an optional `suffixes` list.

import { base58 } from '@scure/base';
import type { PublicErrorKey } from './errors';

/** TLDs (namespaces) served by the registry. A deployment may serve more; pass its list as `suffixes`. */
export const DEFAULT_DOMAIN_SUFFIXES: readonly string[] = ['x1', 'xnt', 'xen'];

/** A handle is a PDA seed, and seeds are at most 32 bytes. The grammar is ASCII, so bytes = characters. */
export const MAX_HANDLE_LENGTH = 32;

// One or more labels of [a-z0-9_] separated by single dots.
const HANDLE_PATTERN = /^[a-z0-9_]+(?:\.[a-z0-9_]+)*$/;
// 1..32 of [a-z0-9-], not starting or ending with '-'.
const DOMAIN_LABEL_PATTERN = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

export interface NormalizedName {
  /** The name, ASCII-lowercased, without the leading `@`. */
  name: string;
  /** Whether the input carried one leading `@` (it makes a name handle-shaped even with a known suffix). */
  hadAt: boolean;
}

export type NameClassification =
  | { kind: 'handle'; name: string }
  | { kind: 'domain'; name: string; label: string; tld: string }
  /** Both shapes match: refused with 409, neither side is resolved. */
  | { kind: 'ambiguous'; name: string }
  | { kind: 'invalid-handle' }
  | { kind: 'invalid-domain' };

export type NameClassKind = NameClassification['kind'];

/** The public error each refused class answers with (errors.ts `PUBLIC_ERRORS`). */
export const NAME_CLASS_ERRORS = {
  ambiguous: 'AMBIGUOUS',
  'invalid-handle': 'INVALID_HANDLE',
  'invalid-domain': 'INVALID_DOMAIN',
} as const satisfies Record<Exclude<NameClassKind, 'handle' | 'domain'>, PublicErrorKey>;

/**
 * Strips one leading `@` and lowercases ASCII letters only. Non-ASCII characters are kept as they are
 * (so the grammar rejects them): String#toLowerCase would fold e.g. the Kelvin sign U+212A into `k`,
 * letting a look-alike input resolve to another name.
 */
export function normalizeName(input: string): NormalizedName {
  const hadAt = input.startsWith('@');
  const body = hadAt ? input.slice(1) : input;
  return { name: body.replace(/[A-Z]/g, (c) => c.toLowerCase()), hadAt };
}

/** The last dot-separated label of a normalized name, or null when it has no dot. */
function lastLabel(name: string): string | null {
  const dot = name.lastIndexOf('.');
  return dot === -1 ? null : name.slice(dot + 1);
}

/** The name contains a dot and its last label is a served TLD. */
export function hasKnownSuffix(name: string, suffixes: readonly string[] = DEFAULT_DOMAIN_SUFFIXES): boolean {
  const tld = lastLabel(name);
  return tld !== null && suffixes.includes(tld);
}

/** Handle grammar on a normalized name: 1..32 bytes of `[a-z0-9_]` labels joined by single dots. */
export function matchesHandleGrammar(name: string): boolean {
  return name.length >= 1 && name.length <= MAX_HANDLE_LENGTH && HANDLE_PATTERN.test(name);
}

/** Domain grammar on a normalized name: exactly `<label>.<tld>`, tld served, label per DOMAIN_LABEL_PATTERN. */
export function parseDomain(
  name: string,
  suffixes: readonly string[] = DEFAULT_DOMAIN_SUFFIXES,
): { label: string; tld: string } | null {
  const parts = name.split('.');
  if (parts.length !== 2) return null;
  const [label, tld] = parts as [string, string];
  if (!suffixes.includes(tld) || !DOMAIN_LABEL_PATTERN.test(label)) return null;
  return { label, tld };
}

/**
 * Classifies raw input (as received, e.g. a decoded path segment):
 * handle-shaped = (had `@` or no known suffix) and handle grammar; domain-shaped = known suffix and domain
 * grammar. Both → ambiguous; one → that one; neither → invalid-domain when it has a known suffix, else
 * invalid-handle.
 */
export function classifyName(input: string, suffixes: readonly string[] = DEFAULT_DOMAIN_SUFFIXES): NameClassification {
  const { name, hadAt } = normalizeName(input);
  const knownSuffix = hasKnownSuffix(name, suffixes);
  const handleShaped = (hadAt || !knownSuffix) && matchesHandleGrammar(name);
  const domain = knownSuffix ? parseDomain(name, suffixes) : null;
  if (handleShaped && domain) return { kind: 'ambiguous', name };
  if (domain) return { kind: 'domain', name, label: domain.label, tld: domain.tld };
  if (handleShaped) return { kind: 'handle', name };
  return knownSuffix ? { kind: 'invalid-domain' } : { kind: 'invalid-handle' };
}

/** The normalized handle when the input classifies as a handle (never for domains or ambiguous input). */
export function parseHandle(input: string, suffixes: readonly string[] = DEFAULT_DOMAIN_SUFFIXES): string | null {
  const result = classifyName(input, suffixes);
  return result.kind === 'handle' ? result.name : null;
}

/** A normalized top-level handle (no dot, no `@`): webhook `@name` scopes accept only these, not subnames. */
export function isTopLevelHandle(name: string): boolean {
  return !name.includes('.') && matchesHandleGrammar(name);
}

// 32 bytes in base58 take 32..44 characters; bounding first keeps decoding of hostile input cheap.
const MAX_BASE58_ADDRESS_LENGTH = 44;

/** A 32-byte public key in base58 (any 32 bytes: PDAs are off-curve yet valid addresses). */
export function isBase58Address(s: string): boolean {
  if (s.length < 32 || s.length > MAX_BASE58_ADDRESS_LENGTH) return false;
  try {
    return base58.decode(s).length === 32;
  } catch {
    return false;
  }
}
