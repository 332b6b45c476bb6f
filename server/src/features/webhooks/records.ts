// How the engine's rows look to callers of every stream: a delivery record (the same shape for both streams).
import type { DeliveryErrorClass, DeliveryRecord } from '@sigil/contract/webhooks';
import type { DeliveryRow } from './delivery-queries';

/** Epoch milliseconds → whole epoch seconds (the API's timestamps). */
export const seconds = (ms: number) => Math.floor(ms / 1000);

export function toDeliveryRecord(row: DeliveryRow): DeliveryRecord {
  return {
    id: row.id,
    webhook_id: row.webhook_id,
    event_id: row.event_id,
    event_type: row.event_type as DeliveryRecord['event_type'],
    status: row.status,
    attempts: row.attempts,
    last_status: row.last_status,
    last_error: row.last_error as DeliveryErrorClass | null,
    response_ms: row.response_ms,
    next_attempt_at: row.status === 'pending' && row.next_attempt_at !== null ? seconds(row.next_attempt_at) : null,
    created_at: seconds(row.created_at),
    delivered_at: row.delivered_at === null ? null : seconds(row.delivered_at),
    test: row.test === 1,
  };
}
