import { router } from '../../trpc/init';
import { create } from './create.procedure';
import { remove } from './delete.procedure';
import { deliveries } from './deliveries.procedure';
import { events } from './events.procedure';
import { get } from './get.procedure';
import { list } from './list.procedure';
import { recover } from './recover.procedure';
import { redeliver } from './redeliver.procedure';
import { resume } from './resume.procedure';
import { rotateSecret } from './rotate-secret.procedure';
import { sendTest } from './test-event.procedure';

/** tRPC paths: identityEvents.create, .list, .get, .deliveries, .rotateSecret, .resume, .remove, .redeliver, .sendTest, .recover, .events. */
export const identityEventsRouter = router({
  create,
  list,
  get,
  deliveries,
  rotateSecret,
  resume,
  remove,
  redeliver,
  sendTest,
  recover,
  events,
});
