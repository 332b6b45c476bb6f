// The identity stream as the webhook engine knows it (features/webhooks/stream.ts): its rows as
// `IdentityWebhook`s, its bodies exactly as stored in the log, its test event (a sample handle.registered), its
// switch (SIGIL_IDENTITY_WEBHOOKS).
import { ApiError } from '@sigil/contract/errors';
import { EXAMPLE_SUBJECT, identityEventExample } from '@sigil/contract/event-catalog';
import {
  IDENTITY_EVENT_ID_PREFIX,
  IDENTITY_EVENT_NOTICE,
  IDENTITY_EVENTS_SCHEMA,
  IDENTITY_EVENT_TYPES,
  IdentityEventSchema,
  parseIdentityEventTypes,
  type IdentityEvent,
  type IdentityWebhook,
} from '@sigil/contract/identity-events';
import { isoSeconds } from '@sigil/contract/webhooks';
import { prefixedId } from '../../platform/ids';
import { seconds, TEST_SIGNATURE, testEventChain, type SubscriptionRow, type WebhookStream } from '../webhooks/index';
import { insertIdentityTestEvent, selectIdentityEventPayloads } from './queries';

export function toIdentityWebhook(row: SubscriptionRow): IdentityWebhook {
  return {
    id: row.id,
    scope: { type: row.scope_type, value: row.scope_value },
    url: row.url,
    event_types: JSON.parse(row.event_types) as string[],
    description: row.description,
    status: row.status,
    paused_reason: row.paused_reason,
    from_sequence: Number(row.watch_from_sequence ?? 1),
    created_at: seconds(row.created_at),
    updated_at: seconds(row.updated_at),
  };
}

/** The system program's address: an obviously fake account for test events. */
const NO_ADDRESS = '11111111111111111111111111111111';

/** A `handle.registered` sample with `test: true` and `sequence: 0`, named after the webhook's scope. */
function testEvent(row: SubscriptionRow, name: string, now: number): IdentityEvent {
  const actor = row.scope_type === 'wallet' ? row.scope_value : NO_ADDRESS;
  return IdentityEventSchema.parse({
    schema: IDENTITY_EVENTS_SCHEMA,
    id: prefixedId(IDENTITY_EVENT_ID_PREFIX, now),
    type: 'handle.registered',
    sequence: 0,
    notice: IDENTITY_EVENT_NOTICE,
    test: true,
    chain: testEventChain(isoSeconds(seconds(now))),
    handle: { name, account: NO_ADDRESS },
    actors: { signer: actor },
    change: { handleType: 0, owner: { before: null, after: actor } },
  });
}

/**
 * The catalog's example of `type` as a test event: named after the webhook's scope, and the scope wallet where
 * the example has its own.
 */
function testOfType(row: SubscriptionRow, name: string, type: string, now: number): IdentityEvent {
  let text = JSON.stringify(identityEventExample(type as IdentityEvent['type']));
  if (row.scope_type === 'wallet') text = text.replaceAll(EXAMPLE_SUBJECT, row.scope_value);
  const example = JSON.parse(text) as IdentityEvent;
  return IdentityEventSchema.parse({
    ...example,
    id: prefixedId(IDENTITY_EVENT_ID_PREFIX, now),
    sequence: 0,
    test: true,
    chain: testEventChain(isoSeconds(seconds(now))),
    ...(example.handle === null ? {} : { handle: { ...example.handle, name } }),
  });
}

export const identityWebhookStream: WebhookStream<IdentityWebhook> = {
  name: 'identity',
  eventTypes: IDENTITY_EVENT_TYPES,
  parseEventTypes: parseIdentityEventTypes,
  disabled: () => new ApiError('IDENTITY_WEBHOOKS_DISABLED', 'identity webhooks are turned off on this deployment'),
  toWebhook: toIdentityWebhook,
  // Identity payloads are bounded far below 64 KiB (names ≤ 32 bytes, record values ≤ 512): sent as stored, so
  // every delivery is byte-identical to the log.
  async loadEvents(db, ids) {
    const rows = await selectIdentityEventPayloads(db, ids);
    return new Map(rows.map((r) => [r.id, { type: r.type, body: r.payload }]));
  },
  // Test events are stored (the engine reads bodies from the store) under negative sequences, outside the log.
  async storeTestEvent(trx, row, now, type) {
    const name = row.scope_type === 'name' ? row.scope_value.slice(1) : 'example';
    const event = type === undefined ? testEvent(row, name, now) : testOfType(row, name, type, now);
    await insertIdentityTestEvent(trx, {
      id: event.id,
      type: event.type,
      signature: TEST_SIGNATURE,
      slot: 0,
      handle_name: name,
      payload: JSON.stringify(event),
      test: 1,
      created_at: now,
    });
    return event;
  },
};
