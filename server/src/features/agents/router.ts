import { router } from '../../trpc/init';
import { agent } from './agent.procedure';
import { manifestSchema } from './schema.procedure';
import { validate } from './validate.procedure';

/** tRPC paths: agents.resolve, agents.validate, agents.manifestSchema. */
export const agentsRouter = router({ resolve: agent, validate, manifestSchema });
