import { router } from '../../trpc/init';
import { deleteClient, getClient, listClients, putClient } from './client.procedure';
import {
  keySessions,
  logout,
  revokeKeySession,
  revokeKeyWalletSessions,
  revokeWalletSessions,
} from './sessions.procedure';

/**
 * tRPC paths: oidc.listClients, oidc.getClient, oidc.putClient, oidc.deleteClient, oidc.keySessions,
 * oidc.revokeKeySession, oidc.revokeKeyWalletSessions (portal, Connect bearer session); oidc.logout,
 * oidc.revokeWalletSessions (API key).
 */
export const oidcRouter = router({
  listClients,
  getClient,
  putClient,
  deleteClient,
  keySessions,
  revokeKeySession,
  revokeKeyWalletSessions,
  logout,
  revokeWalletSessions,
});
