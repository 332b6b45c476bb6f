// The output parser of a procedure that answers with stored documents (platform/stored-json.ts). The router stays
// the single source of truth: the schema given here is the procedure's OpenAPI response schema and its tRPC output
// type, and any plain value the procedure returns is validated against it as usual. A StoredJson answer passes
// unchanged: it was assembled from documents validated against this schema when they were written, and checking
// them again on every read is the cost this exists to remove. The REST face writes its text as the body; the tRPC
// face serializes it through its toJSON (the same bytes).
import type { z } from 'zod';
import { StoredJson } from '../platform/stored-json';

/** `schema`, with StoredJson answers let through unparsed (typed: the procedure may return one). */
export function storedOutput<S extends z.ZodType>(
  schema: S,
): z.ZodType<z.output<S>, z.input<S> | StoredJson<z.output<S>>> {
  // Everything else (the `_zod` internals the OpenAPI generator reads among them) is the schema's own.
  const parser = Object.create(schema) as S;
  const parse = (value: unknown) => (value instanceof StoredJson ? value : schema.parse(value));
  Object.defineProperties(parser, {
    parse: { value: parse },
    parseAsync: { value: async (value: unknown) => parse(value) },
  });
  return parser as unknown as z.ZodType<z.output<S>, z.input<S> | StoredJson<z.output<S>>>;
}
