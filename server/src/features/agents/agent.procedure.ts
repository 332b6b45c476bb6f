import { AgentHandleInputSchema, AgentResolutionSchema } from '@sigil/contract/agents';
import { rest } from '../../trpc/meta';
import { meteredProcedure, METERED_ERRORS } from '../../trpc/procedures';

/**
 * GET /v1/agents/{handle}: the agent's live endpoint records and its manifest, checked against the chain. Every
 * failure throws, so a paid (x402) call that ends in 424 or 422 is not consumed (meteredProcedure settles on success).
 */
export const agent = meteredProcedure
  .meta(
    rest('GET', '/v1/agents/{handle}', {
      summary: 'Resolve an agent handle (keyed or x402, priced like a resolve)',
      description:
        'Agent = handle type 3 or an `agent.manifest` record. The manifest is fetched (https, or ipfs through the ' +
        'configured gateway; one retry on a transient failure) and validated for shape and agreement with the chain (docs/agents.md).',
      tags: ['agents'],
      protect: true,
      errors: {
        ...METERED_ERRORS,
        INVALID_HANDLE: '',
        HANDLE_NOT_REGISTERED: '',
        NOT_AN_AGENT: 'the handle is not an agent',
        NO_MANIFEST: 'an agent without a manifest record',
        INVALID_MANIFEST: 'not a manifest, or its contents do not match the handle',
        MANIFEST_UNREACHABLE: 'the message names the cause; a paid call is not consumed and may be retried',
        RPC_ERROR: 'chain unreachable; retry',
      },
    }),
  )
  .input(AgentHandleInputSchema)
  .output(AgentResolutionSchema)
  .query(({ ctx, input }) => ctx.services.agents.resolve(input.handle));
