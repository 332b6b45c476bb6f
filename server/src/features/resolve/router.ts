import { router } from '../../trpc/init';
import { resolve } from './resolve.procedure';
import { reverse } from './reverse.procedure';

/** tRPC paths: names.resolve, names.reverse. */
export const resolveRouter = router({ resolve, reverse });
