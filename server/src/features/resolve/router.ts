import { router } from '../../trpc/init';
import { resolve } from './resolve.procedure';
import { reverse } from './reverse.procedure';

/** tRPC paths: resolve.resolve, resolve.reverse. */
export const resolveRouter = router({ resolve, reverse });
