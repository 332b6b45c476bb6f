// The pay stream's events as its deliveries send them: the stored payloads of pay_events, trimmed to the body
// limit. What the webhook engine's delivery worker calls for a batch's pay deliveries (stream.ts registers it).
import type { Kysely } from 'kysely';
import { trimToLimit, type PayEvent } from '@sigil/contract/pay-events';
import { WEBHOOK_LIMITS } from '@sigil/contract/webhooks';
import type { Database } from '../../platform/db/index';
import type { StoredEvent } from '../webhooks/index';
import { selectPayEventPayloads } from './queries';

/**
 * The body of a stored payload (pay_events.payload, written as JSON.stringify of the event). Within 64 KiB the
 * stored text IS the body: no parse and re-serialization per attempt. Over it, trimToLimit drops memo and
 * references and sets `truncated: true`.
 */
function deliveryBody(storedPayload: string): string {
  // A UTF-16 unit is at most 3 UTF-8 bytes: most bodies are judged without counting.
  if (
    storedPayload.length * 3 <= WEBHOOK_LIMITS.maxBodyBytes ||
    Buffer.byteLength(storedPayload, 'utf8') <= WEBHOOK_LIMITS.maxBodyBytes
  ) {
    return storedPayload;
  }
  return trimToLimit(JSON.parse(storedPayload) as PayEvent).body;
}

/** The stored pay events with these ids, each with its type and the exact body its deliveries send. */
export async function loadPayEvents(db: Kysely<Database>, ids: readonly string[]): Promise<Map<string, StoredEvent>> {
  const rows = await selectPayEventPayloads(db, ids);
  return new Map(rows.map((r) => [r.id, { type: r.type, body: deliveryBody(r.payload) }]));
}
