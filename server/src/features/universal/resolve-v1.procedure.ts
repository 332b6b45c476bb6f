import { ResolveInputSchema } from '@sigil/contract/public';
import { V1ResolutionSchema } from '@sigil/contract/universal';
import { rest } from '../../trpc/meta';
import { meteredProcedure, METERED_ERRORS } from '../../trpc/procedures';

/** GET /v1/resolve/{name}: a native name with its live address records and the slot it was read at. */
export const resolveV1 = meteredProcedure
  .meta(
    rest('GET', '/v1/resolve/{name}', {
      summary: 'Resolve a handle or domain (keyed or x402)',
      description:
        'The public resolution fields plus `authority`, `handleType`, the live address records with their verification ' +
        'status, and the slot the answer was read at (docs/universal.md). `.sol`/`.eth` names: use /v1/resolve-universal.',
      tags: ['resolution'],
      protect: true,
      // The answer is the name's, whoever asks: any admitted key may be given a recent identical one.
      keyedReplay: true,
      errors: {
        ...METERED_ERRORS,
        AMBIGUOUS: 'both a handle and a domain shape (e.g. `@label.x1`); neither side is resolved',
        INVALID_HANDLE: 'handle-shaped input fails the grammar',
        INVALID_DOMAIN: 'domain-shaped input fails parsing',
        INVALID_NAME: 'a shape no native namespace claims, or a `.sol`/`.eth` name (use /v1/resolve-universal)',
        HANDLE_NOT_REGISTERED: 'well-formed handle, nothing registered (or its NFT burned)',
        DOMAIN_NOT_REGISTERED: 'well-formed domain, nothing registered (or its NFT burned)',
        RPC_ERROR: 'chain unreachable or account malformed; retry',
      },
    }),
  )
  .input(ResolveInputSchema)
  .output(V1ResolutionSchema)
  .query(({ ctx, input }) => ctx.services.universal.resolve(input.name, ctx.replay));
