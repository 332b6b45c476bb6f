import { ResolutionSchema, ResolveInputSchema } from '@sigil/contract/public';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

/** GET /resolve/{name}: a handle (`@` optional, any case) or a registry domain → its owner. */
export const resolve = publicProcedure
  .meta(
    rest('GET', '/resolve/{name}', {
      summary: 'Resolve a handle or domain',
      description:
        'Bare words and `@name` are handles; `label.x1|xnt|xen` is a domain; `@label.x1` matches both shapes and is refused with 409 (docs/names.md).',
      tags: ['public'],
      sharedCache: true,
      errors: {
        INVALID_HANDLE: '',
        INVALID_DOMAIN: '',
        HANDLE_NOT_REGISTERED: '',
        DOMAIN_NOT_REGISTERED: '',
        AMBIGUOUS: '',
        MALFORMED_ACCOUNT: 'transient, retry',
        RPC_UNREACHABLE: 'transient, retry',
      },
    }),
  )
  .input(ResolveInputSchema)
  .output(ResolutionSchema)
  .query(({ ctx, input }) => ctx.services.resolve.resolve(input.name, ctx.replay));
