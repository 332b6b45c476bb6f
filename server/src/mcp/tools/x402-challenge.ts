// What the two x402 tools share: reading a challenge (given, or fetched from the service), picking its entry for a
// payer, and the rule that only the configured service is ever fetched (SIGIL_API_URL): deps.fetch may reach
// loopback, so a URL an agent passes must not turn this server into a proxy to anything else.
import { z } from 'zod';
import {
  X402_HEADERS,
  X402_REDEEM_PREFIX,
  caip2FromGenesisHash,
  decodeChallengeHeader,
  isNativeEntry,
  nativeEntryOf,
  redeemMessage,
  x402ChallengeSchema,
  type X402AcceptEntry,
  type X402Challenge,
} from '@sigil/contract/x402';
import type { UpstreamResponse } from '../../platform/outbound/upstream';
import type { ToolDeps } from '../tool';
import type { Failure } from './unsigned-tx';

export const challengeArg = z
  .record(z.string(), z.unknown())
  .describe('The 402 challenge object (the JSON body of the 402, or the decoded PAYMENT-REQUIRED header).');

export const acceptIndexArg = z
  .number()
  .int()
  .min(0)
  .max(15)
  .optional()
  .describe('Which entry of challenge.accepts to pay; default: the native-rail entry.');

export function parseChallenge(raw: unknown): { ok: true; challenge: X402Challenge } | Failure {
  const parsed = x402ChallengeSchema.safeParse(raw);
  if (parsed.success) return { ok: true, challenge: parsed.data };
  const issue = parsed.error.issues[0];
  const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
  return { ok: false, code: 'BAD_REQUEST', message: `not an x402 challenge (${where}${issue?.message})` };
}

/**
 * An absolute URL of the configured service, from an absolute URL under SIGIL_API_URL or a path (`/v1/…`) relative
 * to it. Anything else is URL_REJECTED.
 */
export function serviceUrl(deps: ToolDeps, input: string): { ok: true; url: string } | Failure {
  let url: URL;
  try {
    url = new URL(input, deps.apiUrl + '/');
  } catch {
    return { ok: false, code: 'INVALID_URL', message: 'url is not a URL' };
  }
  const base = new URL(deps.apiUrl + '/');
  if (url.origin !== base.origin || !url.pathname.startsWith(base.pathname)) {
    return {
      ok: false,
      code: 'URL_REJECTED',
      message: `only URLs of the Sigil service (${deps.apiUrl}) are fetched; pass the challenge object instead`,
    };
  }
  // The request target as the service will hash it: take it from the input, not from URL's re-serialization.
  return { ok: true, url: input.startsWith('/') ? deps.apiUrl + input : input };
}

/** GET `url` with X-Payer, expecting the 402 challenge (PAYMENT-REQUIRED header first, else the body). */
export async function fetchChallenge(
  deps: ToolDeps,
  url: string,
  payer: string,
): Promise<{ ok: true; challenge: X402Challenge } | Failure> {
  let response: UpstreamResponse;
  try {
    response = await deps.fetch(url, { method: 'GET', headers: { [X402_HEADERS.payer]: payer } });
  } catch (err) {
    return { ok: false, code: 'X402_UNAVAILABLE', message: `the service did not answer (${(err as Error).message})` };
  }
  const text = await response.text().catch(() => '');
  if (response.status !== 402) {
    let code = 'BAD_REQUEST';
    try {
      const body = JSON.parse(text) as { code?: unknown };
      if (typeof body.code === 'string') code = body.code;
    } catch {
      // not JSON: keep the generic code
    }
    return {
      ok: false,
      code,
      message: `the URL answered ${response.status}, not a 402 challenge: ${text.slice(0, 200)}`,
    };
  }
  const header = response.headers.get(X402_HEADERS.required);
  const fromHeader = header ? decodeChallengeHeader(header) : null;
  if (fromHeader) return { ok: true, challenge: fromHeader };
  let body: unknown = null;
  try {
    body = JSON.parse(text);
  } catch {
    // judged below
  }
  return parseChallenge(body);
}

/** A payer-bound entry: the reference, the redeem message (checked to be the contract's form), the payer. */
export interface BoundEntry {
  entry: X402AcceptEntry;
  reference: string;
  redeemMessage: string;
}

export function boundEntry(
  challenge: X402Challenge,
  acceptIndex: number | undefined,
  payer: string,
): { ok: true; bound: BoundEntry } | Failure {
  const picked = acceptIndex === undefined ? nativeEntryOf(challenge) : challenge.accepts[acceptIndex];
  if (!picked) {
    return { ok: false, code: 'BAD_REQUEST', message: `challenge.accepts has no entry ${acceptIndex ?? 0}` };
  }
  // A facilitator-rail entry is paid through a facilitator by an x402 client, not by this payment shape.
  if (!isNativeEntry(picked)) {
    return { ok: false, code: 'BAD_REQUEST', message: `challenge.accepts[${acceptIndex}] is not a native-rail entry` };
  }
  const entry = picked;
  const { reference, feePayer, redeemMessage: message } = entry.extra;
  if (!reference || !message) {
    return {
      ok: false,
      code: 'PAYER_REQUIRED',
      message: 'the challenge has no reference: request it again with X-Payer (or pass url and payer)',
    };
  }
  if (feePayer !== payer) {
    return { ok: false, code: 'PAYER_MISMATCH', message: `the challenge was issued for payer ${feePayer}` };
  }
  const newline = message.indexOf('\n');
  const domainTag = message.startsWith(X402_REDEEM_PREFIX) ? message.slice(X402_REDEEM_PREFIX.length, newline) : '';
  if (newline < 0 || redeemMessage(domainTag, reference) !== message) {
    return {
      ok: false,
      code: 'BAD_REQUEST',
      message: 'extra.redeemMessage is not the redeem message of its reference',
    };
  }
  return { ok: true, bound: { entry, reference, redeemMessage: message } };
}

/**
 * PAYMENT_NETWORK_UNSUPPORTED when the challenge's entry is for another network than this server's chain; null when
 * they agree. Reads the chain's genesis hash (an RPC failure throws, for the caller's RPC_ERROR).
 */
export async function networkMismatch(deps: ToolDeps, entry: { network: string }): Promise<Failure | null> {
  const network = caip2FromGenesisHash(await deps.chain.getGenesisHash());
  if (network === entry.network) return null;
  return {
    ok: false,
    code: 'PAYMENT_NETWORK_UNSUPPORTED',
    message: `the challenge is for ${entry.network}; this server's chain is ${network}`,
  };
}
