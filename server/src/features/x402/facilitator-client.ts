// The facilitator rail's HTTP client: the x402 facilitator API (POST /verify, POST /settle, GET /supported), each
// call under the configured deadline. The facilitator is the operator's configured dependency, not a URL a user
// supplied, so it is called through the upstream client (platform/outbound/upstream.ts), not the destination policy
// meant for user-supplied URLs. Answers are read to at most 64 KiB and validated; anything else is a
// FacilitatorFailure.
import { z } from 'zod';
import { createUpstreamFetch, UpstreamTooLarge, type UpstreamResponse } from '../../platform/outbound/upstream';

/** Why a facilitator call failed: past the deadline, or any other failure (down, non-2xx, malformed answer). */
export class FacilitatorFailure extends Error {
  constructor(
    readonly kind: 'timeout' | 'error',
    message: string,
  ) {
    super(message);
    this.name = 'FacilitatorFailure';
  }
}

const MAX_ANSWER_BYTES = 64 * 1024;

const supportedSchema = z.looseObject({
  kinds: z.array(
    z.looseObject({
      x402Version: z.number().int(),
      scheme: z.string(),
      network: z.string(),
      extra: z.looseObject({ feePayer: z.string().optional() }).optional(),
    }),
  ),
});
export type FacilitatorSupported = z.infer<typeof supportedSchema>;

const verifySchema = z.looseObject({
  isValid: z.boolean(),
  invalidReason: z.string().nullish(),
  payer: z.string().nullish(),
});
export type FacilitatorVerify = z.infer<typeof verifySchema>;

const settleSchema = z.looseObject({
  success: z.boolean(),
  errorReason: z.string().nullish(),
  payer: z.string().nullish(),
  transaction: z.string().nullish(),
  network: z.string().nullish(),
});
export type FacilitatorSettle = z.infer<typeof settleSchema>;

/** The body of /verify and /settle. */
export interface FacilitatorRequest {
  x402Version: number;
  paymentPayload: unknown;
  paymentRequirements: unknown;
}

export interface FacilitatorClient {
  supported(): Promise<FacilitatorSupported>;
  verify(body: FacilitatorRequest): Promise<FacilitatorVerify>;
  settle(body: FacilitatorRequest): Promise<FacilitatorSettle>;
}

export function createFacilitatorClient(options: { url: string; timeoutMs: number }): FacilitatorClient {
  const upstream = createUpstreamFetch({ timeoutMs: options.timeoutMs, maxBytes: MAX_ANSWER_BYTES });
  const call = async <T>(path: string, schema: z.ZodType<T>, body?: FacilitatorRequest): Promise<T> => {
    let res: UpstreamResponse;
    try {
      res = await upstream(`${options.url}${path}`, {
        method: body ? 'POST' : 'GET',
        headers: body
          ? { 'content-type': 'application/json', accept: 'application/json' }
          : { accept: 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
    } catch (err) {
      if (err instanceof Error && err.name === 'TimeoutError') {
        throw new FacilitatorFailure('timeout', `facilitator ${path} did not answer within ${options.timeoutMs} ms`);
      }
      if (err instanceof UpstreamTooLarge) {
        throw new FacilitatorFailure('error', `facilitator answer larger than ${MAX_ANSWER_BYTES} bytes`);
      }
      throw new FacilitatorFailure('error', `facilitator ${path} unreachable (${(err as Error).message})`);
    }
    if (!res.ok) throw new FacilitatorFailure('error', `facilitator ${path} answered HTTP ${res.status}`);
    let json: unknown;
    try {
      json = JSON.parse(await res.text());
    } catch {
      throw new FacilitatorFailure('error', `facilitator ${path} answered something that is not JSON`);
    }
    const parsed = schema.safeParse(json);
    if (!parsed.success) throw new FacilitatorFailure('error', `facilitator ${path} answered an unexpected shape`);
    return parsed.data;
  };
  return {
    supported: () => call('/supported', supportedSchema),
    verify: (body) => call('/verify', verifySchema, body),
    settle: (body) => call('/settle', settleSchema, body),
  };
}
