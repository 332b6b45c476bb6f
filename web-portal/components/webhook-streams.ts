'use client';
// The two webhook streams the portal manages with the same pages: pay webhooks (registered with the wallet's
// signature) and identity-event webhooks (no proof: identity events are public chain state). Every call goes through
// the signed-in session and one of the wallet's keys (owner-key.tsx), never a key secret. The pages take the stream's
// name (a server component cannot hand functions to a client one) and read its calls from here.
import { useMemo } from 'react';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { PAY_EVENT_TYPES } from '@sigil/contract/webhooks';
import { IDENTITY_EVENT_TYPES } from '@sigil/contract/identity-events';
import { trpc } from '../lib/trpc';
import { useOwnerKey } from './owner-key';

type Outputs = inferRouterOutputs<AppRouter>['ownerWebhooks'];
type Inputs = inferRouterInputs<AppRouter>['ownerWebhooks'];
export type WebhookView = Outputs['get'];
export type Delivery = Outputs['deliveries']['deliveries'][number];
export type DeliveryDetail = Outputs['delivery'];
export type AttemptPage = Outputs['attempts'];
export type Recovered = Outputs['recover'];
export type WebhookPatch = Omit<Inputs['edit'], 'id' | 'stream' | 'webhookId'>;
export type DeliveryQuery = Omit<Inputs['deliveries'], 'id' | 'stream' | 'webhookId'>;

export type StreamName = 'pay' | 'identity';

interface StreamFacts {
  /** Where its list lives; a webhook's page is `${base}/<id>`. */
  base: string;
  /** The event types its deliveries can carry (the log's type filter, the test event's choice). */
  eventTypes: readonly string[];
  /** The subscribed types, as the list shows them. */
  describeTypes(types: readonly string[]): string;
}

export const STREAMS: Readonly<Record<StreamName, StreamFacts>> = {
  pay: {
    base: '/webhooks',
    eventTypes: PAY_EVENT_TYPES,
    describeTypes: (types) => (types.length === PAY_EVENT_TYPES.length ? 'all' : types.join(', ')),
  },
  identity: {
    base: '/identity/webhooks',
    eventTypes: IDENTITY_EVENT_TYPES,
    // Kept as given: `*` and families also cover types the registry adds later.
    describeTypes: (types) => (types.includes('*') ? 'all' : types.join(', ')),
  },
};

/** The stream's calls through key `keyId`. */
export function streamApi(stream: StreamName, keyId: string) {
  const at = (webhookId: string) => ({ id: keyId, stream, webhookId });
  const w = trpc.ownerWebhooks;
  return {
    ...STREAMS[stream],
    keyId,
    list: async () => (await w.list.query({ id: keyId, stream })).webhooks,
    get: (id: string) => w.get.query(at(id)),
    edit: (id: string, patch: WebhookPatch) => w.edit.mutate({ ...at(id), ...patch }),
    urlChallenge: (id: string, url: string) => w.urlChallenge.mutate({ id: keyId, webhookId: id, url }),
    disable: (id: string) => w.disable.mutate(at(id)),
    enable: (id: string) => w.enable.mutate(at(id)),
    deliveries: (id: string, query: DeliveryQuery) => w.deliveries.query({ ...at(id), ...query }),
    delivery: (id: string, deliveryId: string) => w.delivery.query({ ...at(id), deliveryId }),
    attempts: (id: string, deliveryId: string, cursor?: string) =>
      w.attempts.query({ ...at(id), deliveryId, ...(cursor ? { cursor } : {}) }),
    sendTest: (id: string, type: string) => w.sendTest.mutate({ ...at(id), type }),
    rotateSecret: async (id: string) => (await w.rotateSecret.mutate(at(id))).secret,
    resume: (id: string) => w.resume.mutate(at(id)),
    remove: (id: string) => w.remove.mutate(at(id)),
    redeliver: (id: string, deliveryId: string) => w.redeliver.mutate({ ...at(id), deliveryId }),
    recover: (id: string, since: string, until?: string) =>
      w.recover.mutate({ ...at(id), since, ...(until ? { until } : {}) }),
  };
}
export type StreamApi = ReturnType<typeof streamApi>;

/** The stream's calls through the key the pages act through. */
export function useStream(stream: StreamName): StreamApi {
  const keyId = useOwnerKey();
  return useMemo(() => streamApi(stream, keyId), [stream, keyId]);
}
