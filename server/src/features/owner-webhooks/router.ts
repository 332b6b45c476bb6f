import { router } from '../../trpc/init';
import { catalog } from './catalog.procedure';
import { attempts, deliveries, delivery, redeliver, sendTest } from './deliveries.procedure';
import { disable, enable, recover, resume, rotateSecret } from './state.procedure';
import { edit, get, identityCreate, list, payChallenge, payRegister, remove, urlChallenge } from './webhooks.procedure';

/**
 * tRPC paths: ownerWebhooks.list, .get, .payChallenge, .payRegister, .identityCreate, .urlChallenge, .edit, .remove,
 * .disable, .enable, .resume, .rotateSecret, .recover, .deliveries, .delivery, .attempts, .redeliver, .sendTest (Connect
 * bearer session); ownerWebhooks.catalog (public).
 */
export const ownerWebhooksRouter = router({
  list,
  get,
  payChallenge,
  payRegister,
  identityCreate,
  urlChallenge,
  edit,
  remove,
  disable,
  enable,
  resume,
  rotateSecret,
  recover,
  deliveries,
  delivery,
  attempts,
  redeliver,
  sendTest,
  catalog,
});
