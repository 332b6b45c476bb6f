// The one tRPC instance. Procedures throw domain errors (PublicError, ApiError from @sigil/contract/errors; a
// ChainError from the reader counts as one too); the middleware below turns them into TRPCErrors that carry the
// domain error as `cause`, and the two faces render them: REST in platform/http/errors.ts, tRPC in errorFormatter.
import { initTRPC, TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server/rpc';
import { HTTP_STATUS_TRPC_ERROR_CODE } from 'trpc-to-openapi';
import { ApiError, PublicError } from '@sigil/contract/errors';
import { apiErrorOf } from '@sigil/contract/parse';
import { ChainError } from '../platform/chain/types';
import { withDeadline } from '../platform/deadline';
import { domainErrorOf, faceOf, statusOfDomainError, zodMessage } from '../platform/http/errors';
import type { RequestContext } from './context';
import type { ProcedureMeta } from './meta';

function trpcCodeForStatus(status: number): TRPC_ERROR_CODE_KEY {
  const exact = (HTTP_STATUS_TRPC_ERROR_CODE as Record<number, TRPC_ERROR_CODE_KEY | undefined>)[status];
  if (exact) return exact;
  return status >= 500 ? 'INTERNAL_SERVER_ERROR' : 'BAD_REQUEST';
}

const t = initTRPC
  .context<RequestContext>()
  .meta<ProcedureMeta>()
  .create({
    // Never put stacks in error shapes, whatever NODE_ENV says.
    isDev: false,
    errorFormatter({ shape, error }) {
      const domain = domainErrorOf(error);
      const invalidInput = error.code === 'BAD_REQUEST' && error.cause?.name === 'ZodError';
      const status = domain ? statusOfDomainError(domain) : shape.data.httpStatus;
      let message = shape.message;
      if (domain instanceof ChainError) message = domain.kind === 'malformed' ? 'malformed account' : 'rpc unreachable';
      else if (domain) message = domain.message;
      else if (error.code === 'INTERNAL_SERVER_ERROR')
        message = 'internal error'; // never echo an unexpected exception
      // The same readable line as the REST face, so a page can show what to fix (never the issues array).
      else if (invalidInput) message = zodMessage(error.cause);
      return {
        message,
        code: shape.code,
        data: {
          code: shape.data.code,
          httpStatus: status,
          path: shape.data.path,
          /** Our code: a /v1 code (`INVALID_KEY`), a public error key (`HANDLE_NOT_REGISTERED`), or `RPC_ERROR`. */
          errorCode:
            domain instanceof ApiError
              ? domain.code
              : domain instanceof PublicError
                ? domain.key
                : domain
                  ? 'RPC_ERROR'
                  : invalidInput
                    ? 'BAD_REQUEST'
                    : undefined,
          input: domain instanceof PublicError ? domain.input : undefined,
        },
      };
    },
  });

/** An input that failed a schema made with the contract's `withFieldCodes`: its ApiError (the spec's field code). */
function codedInputError(error: TRPCError): ApiError | undefined {
  const cause = error.cause as { issues?: unknown } | undefined;
  if (error.code !== 'BAD_REQUEST' || !Array.isArray(cause?.issues)) return undefined;
  return apiErrorOf(cause as Parameters<typeof apiErrorOf>[0]);
}

/**
 * Postgres refuses U+0000 in text (it answers an error, where SQLite would store it or find no row), and no field of
 * this API has a use for it: every procedure but the public ones refuses it in any string of the input, a key
 * included, or of the path, before anything reads or writes, on the REST and tRPC faces alike. (The public
 * procedures' names are checked by their own rules and answer their own codes; they store nothing.)
 */
const nulText = () => new ApiError('BAD_REQUEST', 'text may not contain the character U+0000');

function holdsNul(value: unknown, depth = 0): boolean {
  if (typeof value === 'string') return value.includes('\0');
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  if (Array.isArray(value)) return value.some((item) => holdsNul(item, depth + 1));
  return Object.entries(value).some(([key, item]) => key.includes('\0') || holdsNul(item, depth + 1));
}

/**
 * Every procedure's first step (one middleware, since tRPC copies its call options at every middleware level):
 * - text holding U+0000 is refused (nulText above);
 * - REST path parameters arrive from trpc-to-openapi still percent-encoded; the HTTP layer decodes them once into
 *   `ctx.pathParams`, and this hands the decoded values to the input parser in place of the raw ones;
 * - the procedure runs inside the request's deadline budget for chain reads (platform/deadline.ts);
 * - domain errors become TRPCErrors with the matching status and the domain error as `cause`; so does an input that
 *   failed a coded contract schema (the input schema is the only parse: its codes are the route's field codes).
 */
const base = t.middleware(async ({ ctx, meta, next, getRawInput }) => {
  // The request's one budget for all its chain reads (platform/deadline.ts).
  const result = await withDeadline(ctx.services.config.requestDeadlineMs, async () => {
    const raw = await getRawInput();
    if (!(meta?.openapi && faceOf(meta.openapi.path) === 'public') && (holdsNul(raw) || holdsNul(ctx.pathParams))) {
      const refused = nulText();
      throw new TRPCError({ code: 'BAD_REQUEST', message: refused.message, cause: refused });
    }
    if (!ctx.pathParams) return next();
    // A body that is not an object (an array, a string, a number, null) stays the input as sent, so its parser
    // refuses it (400): merged with the path parameters, `[]` or `5` would have become a valid input.
    if (raw !== undefined && (raw === null || typeof raw !== 'object' || Array.isArray(raw))) return next();
    return next({ getRawInput: async () => ({ ...(raw as Record<string, unknown> | undefined), ...ctx.pathParams }) });
  });
  if (!result.ok) {
    const domain = domainErrorOf(result.error) ?? codedInputError(result.error);
    if (domain && (result.error.cause !== domain || result.error.code === 'INTERNAL_SERVER_ERROR')) {
      throw new TRPCError({
        code: trpcCodeForStatus(statusOfDomainError(domain)),
        message: domain.message,
        cause: domain,
      });
    }
  }
  return result;
});

export const router = t.router;
export const mergeRouters = t.mergeRouters;
export const middleware = t.middleware;
/** Every named procedure starts here. */
export const baseProcedure = t.procedure.use(base);
