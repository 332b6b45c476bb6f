// The pay stream as the webhook engine knows it (features/webhooks/stream.ts): its rows as `Webhook`s, its bodies
// from pay_events (trimmed to 64 KiB), its test event (a sample payment.received), its switch (SIGIL_PAY_WEBHOOKS).
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import { ApiError } from '@sigil/contract/errors';
import {
  trimToLimit,
  PAY_EVENT_NOTICE,
  PAY_EVENTS_SCHEMA,
  PAY_EVENT_ID_PREFIX,
  PayEventSchema,
  type PayEvent,
} from '@sigil/contract/pay-events';
import { EXAMPLE_SUBJECT, payExample } from '@sigil/contract/event-catalog';
import { PAY_EVENT_TYPES, parseEventTypes, type PayEventType, type Webhook } from '@sigil/contract/webhooks';
import {
  seconds,
  signedHeaders,
  TEST_SIGNATURE,
  testEventChain,
  type SubscriptionRow,
  type WebhookStream,
} from '../webhooks/index';
import { loadPayEvents } from './events';
import { insertPayEvent } from './queries';

export function toWebhook(row: SubscriptionRow): Webhook {
  return {
    id: row.id,
    scope: {
      type: row.scope_type as 'wallet' | 'name',
      value: row.scope_value,
      wallets: JSON.parse(row.wallets) as string[],
    },
    url: row.url,
    event_types: JSON.parse(row.event_types) as PayEventType[],
    description: row.description,
    status: row.status,
    paused_reason: row.paused_reason,
    created_at: seconds(row.created_at),
    updated_at: seconds(row.updated_at),
  };
}

/** The request body and headers of one pay attempt (the bench and the docs). */
export function buildDeliveryRequest(
  payload: PayEvent,
  ids: { deliveryId: string; webhookId: string },
  secret: string | readonly string[],
  nowMs: number,
) {
  const { body } = trimToLimit(payload);
  return { body, headers: signedHeaders(body, payload, ids, typeof secret === 'string' ? [secret] : secret, nowMs) };
}

/** A sample payment of 1 lamport to the webhook's first wallet, `test: true`. */
function testPayment(wallet: string, now: number): PayEvent {
  return {
    schema: PAY_EVENTS_SCHEMA,
    id: PAY_EVENT_ID_PREFIX + base58.encode(randomBytes(32)),
    type: 'payment.received',
    notice: PAY_EVENT_NOTICE,
    test: true,
    chain: testEventChain(new Date(now).toISOString()),
    payment: {
      kind: 'transfer',
      payer: '11111111111111111111111111111111',
      recipient: wallet,
      recipientTokenAccount: null,
      asset: 'native',
      mint: null,
      amount: '1',
      fee: '0',
      net: '1',
      invoice: null,
      reference: null,
      references: [],
      memo: 'sigil test event',
      binding: { status: 'none', handles: [] },
    },
  };
}

/** The catalog's example of `type` as a test event to `wallet`: the webhook's wallet where the example has its own. */
function testOfType(type: PayEventType, wallet: string, now: number): PayEvent {
  const example = JSON.stringify(payExample(type)).replaceAll(EXAMPLE_SUBJECT, wallet);
  return PayEventSchema.parse({
    ...(JSON.parse(example) as PayEvent),
    id: PAY_EVENT_ID_PREFIX + base58.encode(randomBytes(32)),
    test: true,
    chain: testEventChain(new Date(now).toISOString()),
  });
}

export const payWebhookStream: WebhookStream<Webhook> = {
  name: 'pay',
  eventTypes: PAY_EVENT_TYPES,
  parseEventTypes,
  disabled: () => new ApiError('PAY_WEBHOOKS_DISABLED', 'pay webhooks are turned off on this deployment'),
  toWebhook,
  loadEvents: loadPayEvents,
  async storeTestEvent(trx, row, now, type) {
    const wallet = (JSON.parse(row.wallets) as string[])[0]!;
    const payload = type === undefined ? testPayment(wallet, now) : testOfType(type as PayEventType, wallet, now);
    await insertPayEvent(trx, {
      id: payload.id,
      type: payload.type,
      signature: TEST_SIGNATURE,
      slot: 0,
      ix_index: 0,
      inner_index: -1,
      wallet,
      binding_status: null,
      binding_checks: 0,
      payload: JSON.stringify(payload),
      test: 1,
      created_at: now,
    });
    return payload;
  },
};
