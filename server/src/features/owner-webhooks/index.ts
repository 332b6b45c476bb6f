// Webhooks managed with the portal session: the signed-in owner's routes over both webhook streams, under
// /v1/keys/{id}/webhooks, and the public event catalog.
import type { OwnerWebhooksService } from './service';

export { ownerWebhooksRouter } from './router';
export { createOwnerWebhooksService } from './service';

declare module '../../trpc/context' {
  interface Services {
    ownerWebhooks: OwnerWebhooksService;
  }
}
