import { router } from '../../trpc/init';
import { reverseBatch } from './batch.procedure';
import { reverseKeyed } from './reverse.procedure';

/** tRPC paths: reverse.reverse, reverse.batch. */
export const reverseRouter = router({ reverse: reverseKeyed, batch: reverseBatch });
