// Request schemas that answer the spec's code for the first failing field. Pure: no I/O.
//
// A schema made with `withFieldCodes` stamps every issue it raises with the code that field answers
// (`issue.params.code`); semantic rules add their own issues with their own code. `apiErrorOf` is the one mapper from
// such a failure to the ApiError the service answers, used by the server's input parsing and by `parseCoded` alike,
// so a request is validated once, by its schema, wherever it is parsed.
import type { z } from 'zod';
import { ApiError, type V1ErrorCode } from './errors';

export interface FieldCodes {
  /** Top-level field → the code its failures answer; fields not listed answer BAD_REQUEST. */
  fields: Readonly<Record<string, V1ErrorCode>>;
  /** A body that is not an object of the schema's shape (default BAD_REQUEST). */
  nonObject?: V1ErrorCode;
}

interface CodedParams {
  code?: V1ErrorCode;
  /** Set by addCodedIssue: the message is whole (it names its field itself, or none). */
  whole?: true;
}

/** A failure of a coded rule that is not about one field's shape (e.g. "exactly one of"). */
export function addCodedIssue(ctx: z.RefinementCtx, code: V1ErrorCode, message: string): void {
  ctx.addIssue({ code: 'custom', message, params: { code, whole: true } satisfies CodedParams });
}

/** A rule of the contract that throws its ApiError, as an issue of the schema being refined (false when it threw). */
export function asIssue(ctx: z.RefinementCtx, rule: () => unknown): boolean {
  try {
    rule();
    return true;
  } catch (err) {
    if (!(err instanceof ApiError)) throw err;
    addCodedIssue(ctx, err.code, err.message);
    return false;
  }
}

/** The schema, answering `codes` for its failures. Apply before `.meta({ id })`: derived schemas drop the id. */
export function withFieldCodes<S extends z.ZodType>(schema: S, codes: FieldCodes): S {
  return schema.superRefine(
    (_value, ctx) => {
      for (const issue of ctx.issues) {
        const params = (issue as { params?: CodedParams }).params;
        if (params?.code) continue;
        const field = typeof issue.path?.[0] === 'string' ? issue.path[0] : '';
        const code = field ? (codes.fields[field] ?? 'BAD_REQUEST') : (codes.nonObject ?? 'BAD_REQUEST');
        (issue as { params?: CodedParams }).params = { ...params, code };
      }
    },
    // Runs even when the shape already failed: that is when the codes are needed.
    { when: () => true },
  ) as S;
}

/** The ApiError for a failed coded parse (its first issue), or undefined when the schema carries no codes. */
export function apiErrorOf(error: { issues: readonly z.core.$ZodIssue[] }): ApiError | undefined {
  const issue = error.issues[0];
  const params = (issue as { params?: CodedParams } | undefined)?.params;
  if (!issue || !params?.code) return undefined;
  const { code } = params;
  if (params.whole) return new ApiError(code, issue.message);
  const field = typeof issue.path[0] === 'string' ? issue.path[0] : '';
  return new ApiError(code, field ? `${field}: ${issue.message}` : 'request body must be a JSON object');
}

/** Parses `body` with a coded schema; a failure throws its ApiError. */
export function parseCoded<T>(schema: z.ZodType<T>, body: unknown): T {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  throw apiErrorOf(result.error) ?? new ApiError('BAD_REQUEST', 'invalid request body');
}

/**
 * Parses `body` with `schema`. A failing top-level field answers `fieldCodes[field]` (BAD_REQUEST when unlisted) with
 * `<field>: <zod message>`; a body that is not an object of that shape answers `nonObjectCode`.
 */
export function parseWithFieldCodes<T>(
  schema: z.ZodType<T>,
  body: unknown,
  fieldCodes: Readonly<Record<string, V1ErrorCode>>,
  nonObjectCode: V1ErrorCode = 'BAD_REQUEST',
): T {
  return parseCoded(withFieldCodes(schema, { fields: fieldCodes, nonObject: nonObjectCode }), body);
}
