// Connect bodies are parsed by the contract's parsers, which answer the codes we chose (INVALID_HANDLE,
// INVALID_WALLET, INVALID_CHALLENGE_REQUEST, INVALID_SIGNATURE_ENCODING …) instead of the generic 400 a zod
// input failure gives. This middleware runs them on the raw body before the (documentation) input schema.
import { middleware } from '../../trpc/init';

export function parsedBody<T>(parse: (body: unknown) => T) {
  return middleware(async ({ getRawInput, next }) => {
    const body = parse(await getRawInput());
    return next({ ctx: { body } });
  });
}
