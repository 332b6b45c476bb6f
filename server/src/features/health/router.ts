import { router } from '../../trpc/init';
import { health } from './health.procedure';
import { namespaces } from './namespaces.procedure';
import { v1Health } from './v1-health.procedure';
import { version } from './version.procedure';

/** tRPC paths: health.live, health.v1, health.version, health.namespaces. */
export const healthRouter = router({ live: health, v1: v1Health, version, namespaces });
