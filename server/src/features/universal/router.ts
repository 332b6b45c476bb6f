import { router } from '../../trpc/init';
import { resolveBatch } from './resolve-batch.procedure';
import { resolveUniversal } from './resolve-universal.procedure';
import { resolveV1 } from './resolve-v1.procedure';

/** tRPC paths: universal.resolve, universal.resolveUniversal, universal.resolveBatch. */
export const universalRouter = router({ resolve: resolveV1, resolveUniversal, resolveBatch });
