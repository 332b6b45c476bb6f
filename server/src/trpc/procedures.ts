// Named procedures: a route's protection is visible in one word.
//
//   publicProcedure   no credentials (public resolve, health, namespaces)
//   apiKeyProcedure   X-API-Key, rate limited                     ─┐
//   sessionProcedure  Connect bearer session (portal)              ├ issue 3 / 5 add these here, each as
//   meteredProcedure  X-API-Key or an x402 payment                ─┘ `baseProcedure.use(<auth middleware>)`
//
// What they need is already in the context (trpc/context.ts): `headers`, `rawBody` (exact bytes, for x402's
// request hash), `clientIp`, `requestId`, `log`, and the process services (`db`, `config`, `chain`, `metrics`).
// An auth middleware throws ApiError (e.g. `new ApiError('API_KEY_REQUIRED', …)`); the HTTP layer renders it,
// including its `headers` (e.g. Retry-After). Extra context it adds flows on through `next({ ctx: { … } })`.
import { baseProcedure } from './init';

export const publicProcedure = baseProcedure;
