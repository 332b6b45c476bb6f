import { HealthSchema } from '@sigil/contract/public';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

/** GET /health: the process is up. Asks nothing of its dependencies. */
export const health = publicProcedure
  .meta(
    rest('GET', '/health', {
      summary: 'Liveness',
      description: 'Answers `{ok: true}` while the process serves requests; reads nothing (no chain, no database).',
      tags: ['public'],
    }),
  )
  .output(HealthSchema)
  .query(() => ({ ok: true as const }));
