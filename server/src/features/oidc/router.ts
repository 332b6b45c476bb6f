import { router } from '../../trpc/init';
import { deleteClient, getClient, putClient } from './client.procedure';

/** tRPC paths: oidc.getClient, oidc.putClient, oidc.deleteClient (portal, Connect bearer session). */
export const oidcRouter = router({ getClient, putClient, deleteClient });
