import { router } from '../../trpc/init';
import { agent } from './agent.procedure';
import { level } from './level.procedure';
import { manifestSchema } from './schema.procedure';
import { validate } from './validate.procedure';

/** tRPC paths: agents.resolve, agents.level, agents.validate, agents.manifestSchema. */
export const agentsRouter = router({ resolve: agent, level, validate, manifestSchema });
