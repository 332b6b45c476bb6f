// verify_x402_payment: would the retry of a paid request be served? Without consuming anything:
//   1. the request is the one the challenge was issued for (its request hash), and the payer is the bound one;
//   2. the payment on chain: finalized, and judged against the challenge's quote by the x402 feature's own check
//      (checkPaymentTransaction: layout, payer, asset, destination, reference, amounts, age);
//   3. what only the service knows (the reference was issued and not expired, nothing already consumed): the
//      identical request is sent once WITHOUT payload.payerSig, which the service refuses with
//      REDEEM_SIGNATURE_REQUIRED after those checks and before consuming anything (docs/x402.md "Redemption").
// The service's own redeem (authorize) needs its database and nonce secret, which this process does not have.
import { address } from '@solana/kit';
import { z } from 'zod';
import {
  X402_HEADERS,
  X402_SCHEME,
  X402_VERSION,
  canonicalRequest,
  encodeBase64Json,
  encodePaymentHeader,
  isBase58Signature,
  requestHash,
} from '@sigil/contract/x402';
import { checkPaymentTransaction } from '../../features/x402/index';
import { ChainError } from '../../platform/chain/types';
import { decodeSignature, verifyWalletMessage } from '../../platform/crypto/wallet-signature';
import type { UpstreamResponse } from '../../platform/outbound/upstream';
import type { ToolDefinition, ToolDeps } from '../tool';
import { walletArg } from './unsigned-tx';
import {
  acceptIndexArg,
  boundEntry,
  challengeArg,
  networkMismatch,
  parseChallenge,
  serviceUrl,
  type BoundEntry,
} from './x402-challenge';

/** Codes after which the identical retry may succeed later without paying again. */
const RETRYABLE = new Set(['PAYMENT_NOT_FINALIZED', 'VERIFIER_UNAVAILABLE', 'METERING_UNAVAILABLE', 'RATE_LIMITED']);

const inputSchema = {
  challenge: challengeArg,
  signature: z.string().max(128).describe('The payment transaction signature (base58).'),
  payer: z.string().max(64).describe('The paying wallet (base58), the one bound with X-Payer.'),
  request: z
    .object({
      method: z.string().max(16),
      url: z.string().max(2048).describe('The metered URL of the Sigil service (absolute, or a path).'),
      body: z.string().max(65536).optional().describe('The exact body text (UTF-8); none for GET.'),
    })
    .describe('The request the challenge was issued for, as it will be retried.'),
  payerSig: z
    .string()
    .max(200)
    .optional()
    .describe('Optional: the base58 signature of redeemMessage; when valid, the complete retry headers are returned.'),
  acceptIndex: acceptIndexArg,
};

const outputSchema = {
  /** True when the identical retry with this payment (and a valid payerSig) will be served. */
  ok: z.boolean(),
  /** `ok`, or the x402 code the service would answer (spec's x402 error table). */
  code: z.string(),
  message: z.string(),
  /** Worth retrying the identical request later without paying again (e.g. PAYMENT_NOT_FINALIZED). */
  retryable: z.boolean(),
  finalized: z.boolean(),
  /** Whether the service itself was asked (only for URLs of the configured service). */
  serviceChecked: z.boolean(),
  payment: z
    .object({ signature: z.string(), reference: z.string(), amount: z.string(), credited: z.string() })
    .optional(),
  /** With a valid payerSig and ok: exactly the headers to add to the retry. */
  retryHeaders: z.record(z.string(), z.string()).optional(),
};

type Output = z.infer<z.ZodObject<typeof outputSchema>>;

function verdict(code: string, message: string, extra: Partial<Output> = {}): { ok: true; value: Output } {
  return {
    ok: true,
    value: {
      ok: code === 'ok',
      code,
      message,
      retryable: RETRYABLE.has(code),
      finalized: false,
      serviceChecked: false,
      ...extra,
    },
  };
}

export const verifyX402PaymentTool: ToolDefinition<typeof inputSchema, typeof outputSchema> = {
  name: 'verify_x402_payment',
  title: 'Check an x402 payment (consumes nothing)',
  description:
    'Tells whether retrying a paid request will be served, WITHOUT consuming the payment. Checks that the request is ' +
    'the one the challenge was issued for, that the payment transaction is finalized and matches the challenge ' +
    '(fixed shape, payer, asset, payTo, reference, amount, age) and, for URLs of the Sigil service, asks the ' +
    'service (without a redeem signature, so nothing is spent) whether the reference is live and unspent. ' +
    'Returns `code`: `ok`, or the x402 code the service would answer (e.g. PAYMENT_NOT_FINALIZED: wait and check ' +
    'again; PAYMENT_WRONG_DESTINATION / PAYMENT_AMOUNT_TOO_LOW: pay again correctly; PAYMENT_ALREADY_USED, ' +
    'REFERENCE_REUSED, REFERENCE_EXPIRED: request a fresh challenge). With `payerSig` it also checks the redeem ' +
    'signature and returns the exact retry headers. Tool errors (isError): BAD_REQUEST, INVALID_WALLET, URL_REJECTED.',
  inputSchema,
  outputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  async run(args, deps) {
    const payer = walletArg(args.payer, 'payer');
    if (!payer.ok) return payer;
    if (!isBase58Signature(args.signature.trim())) {
      return { ok: false, code: 'BAD_REQUEST', message: 'signature must be a base58 64-byte transaction signature' };
    }
    const signature = args.signature.trim();
    const read = parseChallenge(args.challenge);
    if (!read.ok) return read;
    const target = serviceUrl(deps, args.request.url);
    const onService = target.ok;
    const requestUrl = target.ok ? target.url : args.request.url;
    if (!target.ok && target.code === 'INVALID_URL') return target;
    const picked = boundEntry(read.challenge, args.acceptIndex, payer.address);
    if (!picked.ok) return verdict(picked.code, picked.message);
    const { entry, reference } = picked.bound;

    const parts = requestParts(args.request.method, requestUrl, args.request.body);
    if (requestHash(canonicalRequest(parts)) !== entry.extra.requestHash) {
      return verdict(
        'REFERENCE_MISMATCH',
        'the challenge was issued for a different request (method, path, query or body)',
      );
    }
    if (
      args.payerSig !== undefined &&
      !redeemSignatureValid(args.payerSig, picked.bound.redeemMessage, payer.address)
    ) {
      return verdict('REDEEM_SIGNATURE_INVALID', "payerSig is not the payer's signature over redeemMessage");
    }

    const onChain = await chainVerdict(deps, entry, reference, payer.address, signature);
    if (!onChain.ok) return verdict(onChain.code, onChain.message, { finalized: onChain.finalized });
    const payment = onChain.payment;
    if (!onService) {
      return verdict('ok', 'the payment matches the challenge; the service was not asked (URL outside SIGIL_API_URL)', {
        finalized: true,
        payment,
        ...retryHeadersOf(args.payerSig, entry.network, signature, payer.address),
      });
    }
    const service = await askService(deps, requestUrl, args.request, payer.address, entry.network, signature);
    if (service.code !== 'ok') {
      return verdict(service.code, service.message, { finalized: true, serviceChecked: true, payment });
    }
    return verdict('ok', 'the retry will be served (with a valid payerSig)', {
      finalized: true,
      serviceChecked: true,
      payment,
      ...retryHeadersOf(args.payerSig, entry.network, signature, payer.address),
    });
  },
};

/** Method, raw path and raw query (as the service hashes them), and the body bytes. */
function requestParts(method: string, url: string, body: string | undefined) {
  const afterOrigin = url.replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '');
  const target = afterOrigin.split('#')[0]!;
  const q = target.indexOf('?');
  return {
    method,
    path: q === -1 ? target || '/' : target.slice(0, q),
    query: q === -1 ? '' : target.slice(q + 1),
    ...(body !== undefined ? { body: new TextEncoder().encode(body) } : {}),
  };
}

function redeemSignatureValid(payerSig: string, message: string, payer: string): boolean {
  const sig = decodeSignature(payerSig);
  return sig.ok && verifyWalletMessage({ message, signature: sig.bytes, signer: payer }).ok;
}

function retryHeadersOf(payerSig: string | undefined, network: string, signature: string, payer: string) {
  if (payerSig === undefined) return {};
  return {
    retryHeaders: {
      [X402_HEADERS.payer]: payer,
      [X402_HEADERS.payment]: encodePaymentHeader({ network, signature, payerSig }),
    },
  };
}

type ChainVerdict =
  | { ok: true; payment: NonNullable<Output['payment']> }
  | { ok: false; code: string; message: string; finalized: boolean };

/** The payment at `finalized`, judged by the service's own rules against the challenge's quote. */
async function chainVerdict(
  deps: ToolDeps,
  entry: BoundEntry['entry'],
  reference: string,
  payer: string,
  signature: string,
): Promise<ChainVerdict> {
  try {
    const mismatch = await networkMismatch(deps, entry);
    if (mismatch) return { ...mismatch, finalized: false };
    const tx = await deps.chain.getTransactionWire(signature, 'finalized');
    if (!tx) {
      const seen = await deps.chain.getTransactionWire(signature, 'confirmed');
      const message = seen
        ? 'the payment landed but is not finalized yet; check again in a few seconds'
        : 'no such transaction at finalized (not landed, not final yet, or never sent); check again';
      return { ok: false, code: 'PAYMENT_NOT_FINALIZED', message, finalized: false };
    }
    const result = await checkPaymentTransaction(tx, {
      payTo: address(entry.payTo),
      asset: address(entry.asset),
      amount: BigInt(entry.amount),
      reference: address(reference),
      payer: address(payer),
    });
    if (!result.ok) return { ok: false, code: result.code, message: result.message, finalized: true };
    return {
      ok: true,
      payment: { signature, reference, amount: result.amount.toString(), credited: result.credited.toString() },
    };
  } catch (err) {
    if (!(err instanceof ChainError)) throw err;
    return err.kind === 'unreachable'
      ? {
          ok: false,
          code: 'VERIFIER_UNAVAILABLE',
          message: 'the chain RPC did not answer; check again',
          finalized: false,
        }
      : {
          ok: false,
          code: 'PAYMENT_UNVERIFIABLE',
          message: 'the chain returned data that does not decode',
          finalized: false,
        };
  }
}

/**
 * The identical request with the payment but no payerSig: the service runs every check it owns (reference issued,
 * unexpired, unspent; payment unspent) and stops at REDEEM_SIGNATURE_REQUIRED, consuming nothing.
 */
async function askService(
  deps: ToolDeps,
  url: string,
  request: { method: string; body?: string },
  payer: string,
  network: string,
  signature: string,
): Promise<{ code: string; message: string }> {
  const probe = encodeBase64Json({
    x402Version: X402_VERSION,
    accepted: { scheme: X402_SCHEME, network },
    payload: { signature },
  });
  let response: UpstreamResponse;
  try {
    response = await deps.fetch(url, {
      method: request.method.toUpperCase(),
      headers: { [X402_HEADERS.payer]: payer, [X402_HEADERS.payment]: probe },
      ...(request.body !== undefined ? { body: request.body } : {}),
    });
  } catch (err) {
    return { code: 'VERIFIER_UNAVAILABLE', message: `the service did not answer (${(err as Error).message})` };
  }
  let body: { code?: unknown; message?: unknown } = {};
  try {
    body = (await response.json()) as typeof body;
  } catch {
    // judged by status below
  }
  if (body.code === 'REDEEM_SIGNATURE_REQUIRED') return { code: 'ok', message: 'the service accepts the payment' };
  const code = typeof body.code === 'string' ? body.code : 'PAYMENT_UNVERIFIABLE';
  const message = typeof body.message === 'string' ? body.message : `the service answered ${response.status}`;
  return { code, message };
}
