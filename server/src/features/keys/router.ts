import { router } from '../../trpc/init';
import { create } from './create.procedure';
import { list } from './list.procedure';
import { rename } from './rename.procedure';
import { revoke } from './revoke.procedure';
import { usage } from './usage.procedure';

/** tRPC paths: keys.create, keys.list, keys.rename, keys.revoke, keys.usage (portal, Connect bearer session). */
export const keysRouter = router({ create, list, rename, revoke, usage });
