// The identity stream as the webhook engine knows it (features/webhooks/stream.ts): its rows as
// `IdentityWebhook`s, its bodies exactly as stored in the log, its test event (a sample handle.registered), its
// switch (SIGIL_IDENTITY_WEBHOOKS).
import { ApiError } from '@sigil/contract/errors';
import {
  IDENTITY_EVENT_ID_PREFIX,
  IDENTITY_EVENT_NOTICE,
  IDENTITY_EVENTS_SCHEMA,
  IdentityEventSchema,
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

export const identityWebhookStream: WebhookStream<IdentityWebhook> = {
  name: 'identity',
  disabled: () => new ApiError('IDENTITY_WEBHOOKS_DISABLED', 'identity webhooks are turned off on this deployment'),
  toWebhook: toIdentityWebhook,
  // Identity payloads are bounded far below 64 KiB (names ≤ 32 bytes, record values ≤ 512): sent as stored, so
  // every delivery is byte-identical to the log.
  async loadEvents(db, ids) {
    const rows = await selectIdentityEventPayloads(db, ids);
    return new Map(rows.map((r) => [r.id, { type: r.type, body: r.payload }]));
  },
  // Test events are stored (the engine reads bodies from the store) under negative sequences, outside the log.
  async storeTestEvent(trx, row, now) {
    const name = row.scope_type === 'name' ? row.scope_value.slice(1) : 'example';
    const event = testEvent(row, name, now);
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
