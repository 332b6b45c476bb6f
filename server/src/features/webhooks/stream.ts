// What a stream tells the engine when it registers (docs/webhooks.md "One engine, two streams"). The engine keeps
// subscriptions, challenges, signing, attempts, retries, the budget, auto-pause, rotation, redeliver, recover and
// the delivery loop; it knows no event of its own. A stream (pay, identity) names itself, says how its rows look
// to its callers, where its events' bodies come from and what its test event is, and answers its own "turned off".
import type { Kysely } from 'kysely';
import type { ApiError } from '@sigil/contract/errors';
import type { Database } from '../../platform/db/index';
import type { SubscriptionRow } from './subscription-queries';

/** One stored event as its deliveries send it: its type and the exact body bytes. */
export interface StoredEvent {
  type: string;
  body: string;
}

export interface WebhookStream<W = unknown> {
  /** The subscriptions' `stream` column; every management query is scoped by it. */
  readonly name: string;
  /** What the stream's routes answer when the deployment turned the stream off. */
  disabled(): ApiError;
  /** A subscription row as the stream's routes show it. */
  toWebhook(row: SubscriptionRow): W;
  /** The stored events with these ids (ids of other streams are absent from the map). */
  loadEvents(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, StoredEvent>>;
  /** Every event type of the stream, in canonical order. */
  readonly eventTypes: readonly string[];
  /** The stream's `event_types` grammar: the normalized list to store, or INVALID_EVENT_TYPES. */
  parseEventTypes(list: readonly unknown[] | null | undefined): string[];
  /**
   * Stores a `test: true` sample event of `type` (one of eventTypes; the stream's usual sample when absent) for this
   * webhook inside `trx`; answers its id and type.
   */
  storeTestEvent(
    trx: Kysely<Database>,
    row: SubscriptionRow,
    now: number,
    type?: string,
  ): Promise<{ id: string; type: string }>;
}

/** The signature every stream's test events carry: fixed, obviously fake, a valid shape. */
export const TEST_SIGNATURE = '1'.repeat(64);

/** The chain position every stream's test event claims: slot 0, finalized, the fake signature. */
export function testEventChain(blockTime: string) {
  return {
    signature: TEST_SIGNATURE,
    ixIndex: 0,
    innerIndex: -1,
    slot: 0,
    blockTime,
    commitment: 'finalized' as const,
    finalized: true as const,
  };
}
