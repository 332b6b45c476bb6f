import { router } from '../../trpc/init';
import { handles } from './handles.procedure';

/** tRPC paths: search.handles. */
export const searchRouter = router({ handles });
