'use client';
// The two webhook streams the portal manages with the same pages: pay webhooks (registered with the wallet's
// signature) and identity-event webhooks (no proof: identity events are public chain state). The pages take the
// stream's name (a server component cannot hand functions to a client one) and read its procedures from here.
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { PAY_EVENT_TYPES } from '@sigil/contract/webhooks';
import { IDENTITY_EVENT_TYPES } from '@sigil/contract/identity-events';
import { trpc } from '../lib/trpc';

type Outputs = inferRouterOutputs<AppRouter>;
/** What both streams' webhooks have in common (an identity webhook adds `from_sequence`). */
export type WebhookView = Outputs['payWebhooks']['get'] | Outputs['identityEvents']['get'];
export type Delivery = Outputs['payWebhooks']['deliveries']['deliveries'][number];
export type Recovered = Outputs['payWebhooks']['recover'];

export type StreamName = 'pay' | 'identity';

interface WebhookStream {
  /** Where its list lives; a webhook's page is `${base}/<id>`. */
  base: string;
  /** The event types its deliveries can carry (the log's type filter). */
  eventTypes: readonly string[];
  /** The subscribed types, as the list shows them. */
  describeTypes(types: readonly string[]): string;
  list(): Promise<WebhookView[]>;
  get(id: string): Promise<WebhookView>;
  deliveries(id: string, limit: number): Promise<Delivery[]>;
  sendTest(id: string): Promise<unknown>;
  rotateSecret(id: string): Promise<string>;
  resume(id: string): Promise<unknown>;
  remove(id: string): Promise<unknown>;
  redeliver(id: string, deliveryId: string): Promise<unknown>;
  recover(id: string, since: string, until?: string): Promise<Recovered>;
}

const span = (since: string, until?: string) => ({ since, ...(until ? { until } : {}) });

export const STREAMS: Readonly<Record<StreamName, WebhookStream>> = {
  pay: {
    base: '/webhooks',
    eventTypes: PAY_EVENT_TYPES,
    describeTypes: (types) => (types.length === PAY_EVENT_TYPES.length ? 'all' : types.join(', ')),
    list: async () => (await trpc.payWebhooks.list.query({})).webhooks,
    get: (id) => trpc.payWebhooks.get.query({ id }),
    deliveries: async (id, limit) => (await trpc.payWebhooks.deliveries.query({ id, limit })).deliveries,
    sendTest: (id) => trpc.payWebhooks.sendTest.mutate({ id }),
    rotateSecret: async (id) => (await trpc.payWebhooks.rotateSecret.mutate({ id })).secret,
    resume: (id) => trpc.payWebhooks.resume.mutate({ id }),
    remove: (id) => trpc.payWebhooks.remove.mutate({ id }),
    redeliver: (id, deliveryId) => trpc.payWebhooks.redeliver.mutate({ id, deliveryId }),
    recover: (id, since, until) => trpc.payWebhooks.recover.mutate({ id, ...span(since, until) }),
  },
  identity: {
    base: '/identity/webhooks',
    eventTypes: IDENTITY_EVENT_TYPES,
    // Kept as given: `*` and families also cover types the registry adds later.
    describeTypes: (types) => (types.includes('*') ? 'all' : types.join(', ')),
    list: async () => (await trpc.identityEvents.list.query({})).webhooks,
    get: (id) => trpc.identityEvents.get.query({ id }),
    deliveries: async (id, limit) => (await trpc.identityEvents.deliveries.query({ id, limit })).deliveries,
    sendTest: (id) => trpc.identityEvents.sendTest.mutate({ id }),
    rotateSecret: async (id) => (await trpc.identityEvents.rotateSecret.mutate({ id })).secret,
    resume: (id) => trpc.identityEvents.resume.mutate({ id }),
    remove: (id) => trpc.identityEvents.remove.mutate({ id }),
    redeliver: (id, deliveryId) => trpc.identityEvents.redeliver.mutate({ id, deliveryId }),
    recover: (id, since, until) => trpc.identityEvents.recover.mutate({ id, ...span(since, until) }),
  },
};
