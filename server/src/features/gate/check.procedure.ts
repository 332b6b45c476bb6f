import { GateCheckInputSchema, GateCheckResultSchema } from '@sigil/contract/gate';
import { rest } from '../../trpc/meta';
import { apiKeyProcedure, API_KEY_ERRORS, SESSION_ERRORS } from '../../trpc/procedures';
import { callerOf, POLICY_ERRORS } from './context';

/** Rate-limit units of one check: a check reads several accounts, so it costs more than a resolve (docs/gate.md). */
export const GATE_CHECK_COST = 4;

/** POST /v1/gate/check: keyed only, never x402 (not in METERED_ROUTES). */
export const check = apiKeyProcedure
  .meta(
    rest('POST', '/v1/gate/check', {
      summary: 'Check a subject against a policy (keyed)',
      description:
        '`{subject: {handle} | {wallet} | {session}, policyId (+ version) | policy, sign?}` → `allow`, `deny` or ' +
        '`indeterminate` (a leaf that could not be read is null, and a decision that depends on it is never allow), ' +
        'with the reason of every node, the slot and how long the decision holds. `sign: true` adds the decision as ' +
        `a compact JWS (EdDSA; key at /.well-known/jwks.json). Costs ${GATE_CHECK_COST} rate-limit units (docs/gate.md).`,
      tags: ['gate'],
      protect: true,
      // INVALID_SESSION is about `subject.session` in the body; the caller authenticates with its key only.
      credentials: ['ApiKey'],
      cost: () => GATE_CHECK_COST,
      errors: {
        ...API_KEY_ERRORS,
        BAD_REQUEST: 'the body is not a JSON object of this shape',
        INVALID_SUBJECT: 'not exactly one of {handle}, {wallet}, {session}, or a bad handle or wallet',
        INVALID_SESSION: `subject.session: ${SESSION_ERRORS.INVALID_SESSION.replace('portal key', 'calling key')}`,
        ...POLICY_ERRORS,
        INVALID_POLICY: 'not exactly one of policyId and policy, or not a policy',
        POLICY_NOT_FOUND: "policyId (or its version) is not a policy of the key's account",
        NOT_CONFIGURED: 'sign: true on a deployment without a signing key',
      },
    }),
  )
  .input(GateCheckInputSchema)
  .output(GateCheckResultSchema)
  .mutation(({ ctx, input }) => ctx.services.gate.check(callerOf(ctx.apiKey), input));
