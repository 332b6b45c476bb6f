// Parsing a request body with a zod schema and answering the spec's code for the first failing field. Pure: no I/O.
import type { z } from 'zod';
import { ApiError, type V1ErrorCode } from './errors';

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
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = issue && typeof issue.path[0] === 'string' ? issue.path[0] : '';
  if (!field) throw new ApiError(nonObjectCode, 'request body must be a JSON object');
  throw new ApiError(fieldCodes[field] ?? 'BAD_REQUEST', `${field}: ${issue!.message}`);
}
