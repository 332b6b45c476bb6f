// The one place where a failure becomes an HTTP error body. Whatever went wrong — a domain error thrown by a
// procedure (PublicError, ApiError, ChainError, possibly wrapped in a TRPCError), an input that failed its zod
// schema, a body the parser refused, an unknown route — the client sees only the spec's shapes:
//   public routes  {error, input?}   with a text from PUBLIC_ERRORS
//   /v1 routes     {code, message}   with a code from V1_ERRORS
//   /trpc          tRPC's envelope   {error: {message, code, data: {code, httpStatus, errorCode}}}
// never a stack, a tRPC code name in a REST body, a zod `issues` array or a file path.
import { TRPCError } from '@trpc/server';
import { TRPC_ERROR_CODE_HTTP_STATUS } from 'trpc-to-openapi';
import {
  ApiError,
  PUBLIC_ERRORS,
  PublicError,
  V1_ERRORS,
  type PublicErrorKey,
  type V1ErrorCode,
} from '@sigil/contract/errors';
import { ChainError } from '../chain/types';
import { BODY_LIMIT_BYTES, HEADER_LIMIT_BYTES } from './body';

export type DomainError = PublicError | ApiError | ChainError;

/** The domain error a thrown value is, or carries as its cause (one level, as tRPC wraps it). */
export function domainErrorOf(err: unknown): DomainError | undefined {
  const isDomain = (e: unknown): e is DomainError =>
    e instanceof PublicError || e instanceof ApiError || e instanceof ChainError;
  if (isDomain(err)) return err;
  if (err instanceof Error && isDomain(err.cause)) return err.cause;
  return undefined;
}

/** HTTP status of a domain error; a chain failure is a bad gateway (transient, retryable). */
export function statusOfDomainError(err: DomainError): number {
  return err instanceof ChainError ? 502 : err.status;
}

export type Face = 'public' | 'v1' | 'trpc';

/** Which face a request path belongs to (case-insensitive, as route matching is). */
export function faceOf(path: string): Face {
  const p = path.toLowerCase();
  if (p === '/trpc' || p.startsWith('/trpc/')) return 'trpc';
  if (p === '/v1' || p.startsWith('/v1/')) return 'v1';
  return 'public';
}

export interface ShapedError {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
  /** True when nothing expected explains the failure: log it as an error. */
  unexpected: boolean;
}

/** Generic answers by status, for failures that are not a domain error. */
const GENERIC: Record<number, { key: PublicErrorKey; code: V1ErrorCode; message: string }> = {
  400: { key: 'BAD_REQUEST', code: 'BAD_REQUEST', message: 'bad request' },
  404: { key: 'NOT_FOUND', code: 'NOT_FOUND', message: 'no such route' },
  405: { key: 'METHOD_NOT_ALLOWED', code: 'METHOD_NOT_ALLOWED', message: 'method not allowed on this route' },
  413: {
    key: 'PAYLOAD_TOO_LARGE',
    code: 'PAYLOAD_TOO_LARGE',
    message: `request body larger than ${BODY_LIMIT_BYTES} bytes`,
  },
  415: { key: 'UNSUPPORTED_MEDIA_TYPE', code: 'UNSUPPORTED_MEDIA_TYPE', message: 'send the body as application/json' },
  408: { key: 'REQUEST_TIMEOUT', code: 'REQUEST_TIMEOUT', message: 'the request was not received in time' },
  417: { key: 'EXPECTATION_FAILED', code: 'EXPECTATION_FAILED', message: 'only Expect: 100-continue is supported' },
  431: {
    key: 'HEADERS_TOO_LARGE',
    code: 'HEADERS_TOO_LARGE',
    message: `request headers larger than ${HEADER_LIMIT_BYTES} bytes`,
  },
  500: { key: 'INTERNAL', code: 'INTERNAL_ERROR', message: 'internal error' },
  502: { key: 'RPC_UNREACHABLE', code: 'RPC_ERROR', message: 'the chain RPC did not answer' },
};

/** The catalog entry a generic answer of `status` carries on `face`: the public key, or the `/v1` code. */
export function genericCodeOf(face: 'public' | 'v1', status: number): string {
  const g = GENERIC[status];
  if (!g) throw new Error(`no generic answer for status ${status}`);
  return face === 'public' ? g.key : g.code;
}

/**
 * A generic error of `status` on `face`. Statuses without a generic entry fold into 400 (4xx) or 500 (5xx).
 * `message` refines the /v1 message; `input` is echoed on public routes when the error is about one value.
 */
export function genericError(face: Face, status: number, opts: { message?: string; input?: string } = {}): ShapedError {
  const known = GENERIC[status] ? status : status >= 500 ? 500 : 400;
  const g = GENERIC[known]!;
  const unexpected = known === 500;
  if (face === 'public') {
    const body: Record<string, unknown> = { error: PUBLIC_ERRORS[g.key][1] };
    if (opts.input !== undefined && known !== 404) body.input = opts.input; // spec: "not found — no input field"
    return { status: known, body, unexpected };
  }
  const message = opts.message ?? g.message;
  if (face === 'v1') return { status: known, body: { code: g.code, message }, unexpected };
  return trpcEnvelope(known, message, g.code, unexpected);
}

/** tRPC's error envelope, for failures that happen before tRPC sees the request (e.g. unparsable JSON). */
function trpcEnvelope(status: number, message: string, errorCode: string, unexpected: boolean): ShapedError {
  const trpcCode =
    status === 400
      ? 'BAD_REQUEST'
      : status === 413
        ? 'PAYLOAD_TOO_LARGE'
        : status === 415
          ? 'UNSUPPORTED_MEDIA_TYPE'
          : status === 404
            ? 'NOT_FOUND'
            : status === 405
              ? 'METHOD_NOT_SUPPORTED'
              : 'INTERNAL_SERVER_ERROR';
  const jsonRpc: Record<string, number> = {
    BAD_REQUEST: -32600,
    NOT_FOUND: -32004,
    METHOD_NOT_SUPPORTED: -32005,
    PAYLOAD_TOO_LARGE: -32013,
    UNSUPPORTED_MEDIA_TYPE: -32015,
    INTERNAL_SERVER_ERROR: -32603,
  };
  return {
    status,
    body: { error: { message, code: jsonRpc[trpcCode], data: { code: trpcCode, httpStatus: status, errorCode } } },
    unexpected,
  };
}

/** A v1 code for a public error key when a public-style error escapes on a /v1 route. */
function v1CodeOf(err: PublicError): V1ErrorCode {
  if (err.key in V1_ERRORS) return err.key as V1ErrorCode;
  if (err.key === 'RPC_UNREACHABLE' || err.key === 'MALFORMED_ACCOUNT' || err.key === 'MALFORMED_HANDLE')
    return 'RPC_ERROR';
  return GENERIC[err.status]?.code ?? (err.status >= 500 ? 'INTERNAL_ERROR' : 'BAD_REQUEST');
}

function shapeDomain(
  face: 'public' | 'v1',
  err: PublicError | ApiError | ChainError,
  input: string | undefined,
): ShapedError {
  if (err instanceof ChainError) {
    if (face === 'public')
      return shapeDomain(
        face,
        new PublicError(err.kind === 'malformed' ? 'MALFORMED_ACCOUNT' : 'RPC_UNREACHABLE', input),
        input,
      );
    return {
      status: 502,
      body: {
        code: 'RPC_ERROR',
        message:
          err.kind === 'malformed' ? 'the chain returned data that does not decode' : 'the chain RPC did not answer',
      },
      unexpected: false,
    };
  }
  if (err instanceof PublicError) {
    if (face === 'public') return { status: err.status, body: err.toBody(), unexpected: false };
    return { status: err.status, body: { code: v1CodeOf(err), message: err.message }, unexpected: false };
  }
  if (face === 'v1') return { status: err.status, body: err.toBody(), headers: err.headers, unexpected: false };
  return { ...genericError('public', err.status, { input }), headers: err.headers };
}

/** The first zod issue as one readable line, without the issues array: `invalid input: chain: Invalid option…`. */
export function zodMessage(cause: unknown): string {
  const issues = (cause as { issues?: { path?: PropertyKey[]; message?: string }[] }).issues;
  const first = issues?.[0];
  if (!first) return 'invalid input';
  const where = first.path?.length ? `${first.path.map(String).join('.')}: ` : '';
  return `invalid input: ${where}${first.message ?? 'invalid value'}`.slice(0, 300);
}

/**
 * Shapes any failure for a REST face. `input` is the route's single path parameter (decoded), if it has one:
 * public errors that concern it echo it back.
 */
export function shapeRestError(face: 'public' | 'v1', err: unknown, input?: string): ShapedError {
  const domain = domainErrorOf(err);
  if (domain) return shapeDomain(face, domain, input);

  if (err instanceof TRPCError) {
    if (err.code === 'BAD_REQUEST' && err.cause?.name === 'ZodError')
      return genericError(face, 400, { message: zodMessage(err.cause), input });
    if (err.code === 'PARSE_ERROR') return genericError(face, 400, { message: 'request body is not valid JSON' });
    const status = (TRPC_ERROR_CODE_HTTP_STATUS as Record<string, number>)[err.code] ?? 500;
    return genericError(face, status, { input });
  }
  return shapeFrameworkError(face, err);
}

/** Failures raised by Fastify itself (body parser, URL decoding) or by anything else before a procedure runs. */
export function shapeFrameworkError(face: Face, err: unknown): ShapedError {
  const e = err as { statusCode?: unknown; code?: unknown; name?: unknown };
  if (e && typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.code === 'FST_ERR_CTP_BODY_TOO_LARGE' || e.statusCode === 413) return genericError(face, 413);
    if (e.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || e.statusCode === 415) return genericError(face, 415);
    if (e.name === 'SyntaxError' || e.code === 'FST_ERR_CTP_INVALID_JSON_BODY')
      return genericError(face, 400, { message: 'request body is not valid JSON' });
    if (e.code === 'FST_ERR_BAD_URL')
      return genericError(face, 400, { message: 'malformed percent-encoding in the URL' });
    return genericError(face, e.statusCode);
  }
  return genericError(face, 500);
}
