import { describe, expect, it } from 'vitest';
import { eventCatalog, STREAM_PAYLOAD_SCHEMAS } from './event-catalog';
import { IDENTITY_EVENT_TYPES } from './identity-events';
import { PAY_EVENT_TYPES } from './webhooks';

describe('event catalog', () => {
  const catalog = eventCatalog();

  it('lists every pay and identity event type once, pay first, in canonical order', () => {
    expect(catalog.map((e) => `${e.stream}:${e.type}`)).toEqual([
      ...PAY_EVENT_TYPES.map((t) => `pay:${t}`),
      ...IDENTITY_EVENT_TYPES.map((t) => `identity:${t}`),
    ]);
    expect(catalog).toHaveLength(6 + 34);
  });

  it.each(catalog.map((e) => [`${e.stream} ${e.type}`, e] as const))(
    '%s: the example parses with its stream schema, nothing stripped, of its own type',
    (_, entry) => {
      const parsed = STREAM_PAYLOAD_SCHEMAS[entry.stream].safeParse(entry.payload);
      expect(parsed.error?.issues ?? []).toEqual([]);
      // Zod drops unknown keys: an example with a field the schema does not know would differ here.
      expect(parsed.data).toEqual(entry.payload);
      expect(entry.payload.type).toBe(entry.type);
      expect(entry.payload.test).toBeUndefined();
    },
  );

  it('gives every example its own id', () => {
    expect(new Set(catalog.map((e) => e.payload.id)).size).toBe(catalog.length);
  });

  it('answers fresh copies (a caller changing one does not change the next)', () => {
    (eventCatalog()[0]!.payload as { type: string }).type = 'changed';
    expect(eventCatalog()[0]!.payload.type).toBe('payment.received');
  });
});
