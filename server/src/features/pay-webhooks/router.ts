import { router } from '../../trpc/init';
import { challenge } from './challenge.procedure';
import { deliveries } from './deliveries.procedure';
import { remove } from './delete.procedure';
import { get } from './get.procedure';
import { list } from './list.procedure';
import { recover } from './recover.procedure';
import { redeliver } from './redeliver.procedure';
import { register } from './register.procedure';
import { resume } from './resume.procedure';
import { rotateSecret } from './rotate-secret.procedure';
import { sendTest } from './test-event.procedure';

/** tRPC paths: payWebhooks.challenge, .register, .list, .get, .deliveries, .rotateSecret, .resume, .remove, .redeliver, .sendTest, .recover. */
export const payWebhooksRouter = router({
  challenge,
  register,
  list,
  get,
  deliveries,
  rotateSecret,
  resume,
  remove,
  redeliver,
  sendTest,
  recover,
});
