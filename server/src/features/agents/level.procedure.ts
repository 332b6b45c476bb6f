import { AgentHandleInputSchema, AgentLevelSchema } from '@sigil/contract/agents';
import { rest } from '../../trpc/meta';
import { meteredProcedure, METERED_ERRORS } from '../../trpc/procedures';

/**
 * GET /v1/agents/{handle}/level: the verification level the MCP tool get_agent_manifest and Gate's agent.level
 * report (level.ts). A manifest or probe that fails is a level not reached (`next`), not an error, so an agent whose
 * manifest cannot be fetched answers 200 at L0; only what is not an agent at all, or an unreadable chain, throws.
 */
export const level = meteredProcedure
  .meta(
    rest('GET', '/v1/agents/{handle}/level', {
      summary: "An agent's verification level (keyed or x402, priced like a resolve)",
      description:
        'L0 declared (an `agent.manifest` record), L1 attested (the manifest references a live on-chain attestation ' +
        "of the handle), L2 pay-to confirmed (a live 402 probe of the manifest's x402 endpoint asks to pay a " +
        'signature-verified X1/SOL address record of the handle). `next` names why the next level was not reached; ' +
        'levels above it were not checked (docs/agents.md).',
      tags: ['agents'],
      protect: true,
      errors: {
        ...METERED_ERRORS,
        INVALID_HANDLE: '',
        HANDLE_NOT_REGISTERED: '',
        NOT_AN_AGENT: 'the handle is not an agent',
        NO_MANIFEST: 'an agent without a manifest record',
        RPC_ERROR: 'chain unreachable; retry',
      },
    }),
  )
  .input(AgentHandleInputSchema)
  .output(AgentLevelSchema)
  .query(async ({ ctx, input }) => {
    const report = await ctx.services.agents.level(input.handle);
    return {
      handle: report.name,
      slot: Number(report.slot),
      level: report.level,
      reached: report.reached,
      next: report.next,
    };
  });
