import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import {
  identityEventId,
  identityEventsJsonSchema,
  IdentityEventsQuerySchema,
  identityTypeMatches,
  parseIdentityEventTypes,
  parseIdentityScope,
  RecoverInputSchema,
  toMs,
} from './identity-events';

const codeOf = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return `${err.code}: ${err.message}`;
    throw err;
  }
  return 'ok';
};

describe('sigil.identity-events/v1 JSON Schema', () => {
  it('docs/identity-events.schema.json is the contract, written out (npm run schema:identity-events)', () => {
    const published = JSON.parse(
      readFileSync(new URL('../../docs/identity-events.schema.json', import.meta.url), 'utf8'),
    );
    expect(published).toEqual(identityEventsJsonSchema());
    expect(published.$id).toBe('urn:sigil:schema:sigil.identity-events/v1');
    expect(published.oneOf).toHaveLength(34);
  });
});

describe('identity event ids', () => {
  it('are iev_ + base58 of 16 bytes of sha256("<signature>:<ixIndex>:<innerIndex>:<n>")', () => {
    expect(identityEventId('5'.repeat(88), 2, -1, 0)).toBe('iev_LtEaK4bkP9XFCrjzUbatRe');
    expect(identityEventId('5'.repeat(88), 2, -1, 1)).not.toBe('iev_LtEaK4bkP9XFCrjzUbatRe');
    expect(identityEventId('5'.repeat(88), 2, 0, 0)).not.toBe('iev_LtEaK4bkP9XFCrjzUbatRe');
  });
});

describe('identity event_types grammar', () => {
  it('keeps types, families and * (normalized); empty means all', () => {
    expect(parseIdentityEventTypes(undefined)).toEqual(['*']);
    expect(parseIdentityEventTypes([])).toEqual(['*']);
    expect(parseIdentityEventTypes(['record', 'record.*', 'handle.registered'])).toEqual([
      'record.*',
      'handle.registered',
    ]);
    expect(parseIdentityEventTypes(['record.set', '*'])).toEqual(['*']);
    expect(parseIdentityEventTypes(['offer', 'auction.*', 'lease'])).toEqual(['offer.*', 'auction.*', 'lease.*']);
    expect(parseIdentityEventTypes(['listing.sold', 'gift.claimed'])).toEqual(['listing.sold', 'gift.claimed']);
  });

  it('refuses unknown entries with INVALID_EVENT_TYPES naming the entry', () => {
    expect(codeOf(() => parseIdentityEventTypes(['payment.received']))).toBe(
      'INVALID_EVENT_TYPES: event_types: unknown event type "payment.received"',
    );
    expect(codeOf(() => parseIdentityEventTypes(['record.*.*']))).toBe(
      'INVALID_EVENT_TYPES: event_types: unknown event type "record.*.*"',
    );
    expect(codeOf(() => parseIdentityEventTypes(['Record']))).toBe(
      'INVALID_EVENT_TYPES: event_types: unknown event type "Record"',
    );
    expect(codeOf(() => parseIdentityEventTypes([1]))).toBe(
      'INVALID_EVENT_TYPES: event_types: entries must be strings',
    );
  });

  it('matches a type against a normalized list', () => {
    expect(identityTypeMatches(['*'], 'offer.made')).toBe(true);
    expect(identityTypeMatches(['record.*'], 'record.set')).toBe(true);
    expect(identityTypeMatches(['record.*'], 'records.set')).toBe(false);
    expect(identityTypeMatches(['handle.registered'], 'handle.released')).toBe(false);
  });
});

describe('identity scope', () => {
  it('is an @name, a wallet, or * (the registry)', () => {
    expect(parseIdentityScope('*')).toEqual({ type: 'registry', value: '*' });
    expect(parseIdentityScope('@Alice')).toEqual({ type: 'name', value: '@alice', name: 'alice' });
    expect(parseIdentityScope('11111111111111111111111111111111')).toEqual({
      type: 'wallet',
      value: '11111111111111111111111111111111',
    });
    expect(codeOf(() => parseIdentityScope('**'))).toMatch(/^INVALID_SCOPE: /);
  });
});

describe('recover and log inputs', () => {
  it('recover: since/until as ISO 8601 or unix seconds; until after since', () => {
    expect(RecoverInputSchema.safeParse({ id: 'whsub_x', since: 10 }).success).toBe(true);
    expect(
      RecoverInputSchema.safeParse({ id: 'whsub_x', since: '2026-11-24T00:00:00Z', until: 1_800_000_000 }).success,
    ).toBe(true);
    expect(RecoverInputSchema.safeParse({ id: 'whsub_x', since: 10, until: 10 }).success).toBe(false);
    expect(RecoverInputSchema.safeParse({ id: 'whsub_x', since: 'yesterday' }).success).toBe(false);
    expect(toMs(10)).toBe(10_000);
    expect(toMs('2026-11-24T00:00:00Z')).toBe(Date.UTC(2026, 10, 24));
  });

  it('log: limit 1..200 (default 50), after ≥ 0', () => {
    expect(IdentityEventsQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(IdentityEventsQuerySchema.parse({ after: '7', limit: '200' })).toEqual({ after: 7, limit: 200 });
    for (const bad of [{ limit: '0' }, { limit: '201' }, { after: '-1' }, { after: 'x' }])
      expect(IdentityEventsQuerySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
  });
});
