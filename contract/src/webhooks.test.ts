import { describe, expect, it } from 'vitest';
import { ApiError } from './errors';
import {
  PAY_EVENT_TYPES,
  WEBHOOK_LIMITS,
  afterFailedAttempt,
  buildWebhookChallengeMessage,
  DeliveryListQuerySchema,
  parseEventTypes,
  parseWebhookChallengeRequest,
  parseWebhookRegisterRequest,
  parseWebhookScope,
  retryDelayMs,
  WebhookCreatedSchema,
} from './webhooks';

const WALLET = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const OTHER_WALLET = 'So11111111111111111111111111111111111111112';

function codeOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (e instanceof ApiError) return `${e.code} ${e.status}`;
    throw e;
  }
  return 'no error';
}

describe('parseEventTypes', () => {
  it('treats absent and empty as all six types, in canonical order', () => {
    const all = [
      'payment.received',
      'payment.binding_verified',
      'invoice.paid',
      'invoice.created',
      'invoice.cancelled',
      'invoice.closed',
    ];
    expect(parseEventTypes(undefined)).toEqual(all);
    expect(parseEventTypes(null)).toEqual(all);
    expect(parseEventTypes([])).toEqual(all);
    expect(parseEventTypes(['*'])).toEqual(all);
    expect(PAY_EVENT_TYPES).toEqual(all);
  });

  it('expands groups and wildcards and dedupes', () => {
    expect(parseEventTypes(['invoice.*'])).toEqual([
      'invoice.paid',
      'invoice.created',
      'invoice.cancelled',
      'invoice.closed',
    ]);
    expect(parseEventTypes(['invoice'])).toEqual([
      'invoice.paid',
      'invoice.created',
      'invoice.cancelled',
      'invoice.closed',
    ]);
    expect(parseEventTypes(['payment.*'])).toEqual(['payment.received', 'payment.binding_verified']);
    expect(parseEventTypes(['payment'])).toEqual(['payment.received', 'payment.binding_verified']);
    expect(parseEventTypes(['invoice.closed', 'payment.received', 'invoice.closed'])).toEqual([
      'payment.received',
      'invoice.closed',
    ]);
    expect(parseEventTypes(['payment', 'invoice.paid'])).toEqual([
      'payment.received',
      'payment.binding_verified',
      'invoice.paid',
    ]);
  });

  it('accepts each single event type', () => {
    for (const t of PAY_EVENT_TYPES) expect(parseEventTypes([t])).toEqual([t]);
  });

  it.each([
    ['payment.sent'],
    ['Payment.received'],
    [' payment.received'],
    ['invoice.'],
    ['invoices'],
    ['*.*'],
    ['payment.**'],
    [''],
    ['__proto__'],
    ['toString'],
    ['constructor'],
  ])('rejects unknown entry %j with INVALID_EVENT_TYPES 400', (bad) => {
    expect(codeOf(() => parseEventTypes(['invoice.paid', bad]))).toBe('INVALID_EVENT_TYPES 400');
  });

  it('rejects non-string entries and oversized lists', () => {
    expect(codeOf(() => parseEventTypes([1]))).toBe('INVALID_EVENT_TYPES 400');
    expect(codeOf(() => parseEventTypes(Array(33).fill('*')))).toBe('INVALID_EVENT_TYPES 400');
  });
});

describe('buildWebhookChallengeMessage', () => {
  it('builds the exact documented format', () => {
    const message = buildWebhookChallengeMessage({
      keyId: 'key_3Hk9',
      scope: '@alice',
      url: 'https://shop.example.com/hooks/sigil',
      eventTypes: ['payment.received', 'invoice.paid'],
      nonce: 'nonce_6fZq',
      expiresAt: 1767226200,
    });
    expect(message).toBe(
      'sigil-pay-webhook:v1\n' +
        'key: key_3Hk9\n' +
        'scope: @alice\n' +
        'url: https://shop.example.com/hooks/sigil\n' +
        'events: payment.received,invoice.paid\n' +
        'nonce: nonce_6fZq\n' +
        'expires: 2026-01-01T00:10:00Z',
    );
  });

  it('names a wallet scope by its address', () => {
    const message = buildWebhookChallengeMessage({
      keyId: 'k',
      scope: WALLET,
      url: 'https://a.example/',
      eventTypes: parseEventTypes([]),
      nonce: 'n',
      expiresAt: 0,
    });
    expect(message.split('\n')).toEqual([
      'sigil-pay-webhook:v1',
      'key: k',
      `scope: ${WALLET}`,
      'url: https://a.example/',
      'events: payment.received,payment.binding_verified,invoice.paid,invoice.created,invoice.cancelled,invoice.closed',
      'nonce: n',
      'expires: 1970-01-01T00:00:00Z',
    ]);
  });

  it('refuses field values that would forge extra lines', () => {
    const good = {
      keyId: 'k',
      scope: '@a',
      url: 'https://a.example/',
      eventTypes: ['invoice.paid'] as const,
      nonce: 'n',
      expiresAt: 1,
    };
    expect(() => buildWebhookChallengeMessage({ ...good, keyId: 'k\nscope: @victim' })).toThrow(/single line/);
    expect(() => buildWebhookChallengeMessage({ ...good, url: 'https://a.example/\r' })).toThrow(/single line/);
    expect(() => buildWebhookChallengeMessage({ ...good, nonce: '' })).toThrow(/single line/);
    expect(() => buildWebhookChallengeMessage({ ...good, eventTypes: [] })).toThrow(/eventTypes/);
    expect(() => buildWebhookChallengeMessage({ ...good, expiresAt: 1.5 })).toThrow(/unix seconds/);
  });
});

describe('scope and request parsing', () => {
  it('parses @names (normalized) and wallet addresses', () => {
    expect(parseWebhookScope('@Alice_1')).toEqual({ type: 'name', value: '@alice_1', name: 'alice_1' });
    expect(parseWebhookScope(WALLET)).toEqual({ type: 'wallet', value: WALLET });
  });

  it.each([['@shop.alice'], ['@alice.x1'], ['alice'], ['@'], ['@al ice'], ['@ålice'], ['0x1234'], [WALLET + 'x']])(
    'refuses scope %j with INVALID_SCOPE',
    (scope) => {
      expect(codeOf(() => parseWebhookScope(scope))).toBe('INVALID_SCOPE 400');
    },
  );

  it('parses a full challenge request', () => {
    expect(
      parseWebhookChallengeRequest({
        scope: '@Bob',
        wallet: WALLET,
        url: 'https://x.example/h',
        event_types: ['invoice'],
        description: 'shop',
      }),
    ).toEqual({
      scope: { type: 'name', value: '@bob', name: 'bob' },
      wallet: WALLET,
      url: 'https://x.example/h',
      eventTypes: ['invoice.paid', 'invoice.created', 'invoice.cancelled', 'invoice.closed'],
      description: 'shop',
    });
    expect(parseWebhookChallengeRequest({ scope: WALLET, url: 'https://x.example/h' }).eventTypes).toHaveLength(6);
  });

  it('maps each failing field to its spec code', () => {
    const ok = { scope: WALLET, url: 'https://x.example/h' };
    expect(codeOf(() => parseWebhookChallengeRequest(null))).toBe('BAD_REQUEST 400');
    expect(codeOf(() => parseWebhookChallengeRequest({ url: ok.url }))).toBe('INVALID_SCOPE 400');
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, scope: 7 }))).toBe('INVALID_SCOPE 400');
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, wallet: 'nope' }))).toBe('INVALID_WALLET 400');
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, wallet: OTHER_WALLET }))).toBe('WALLET_MISMATCH 403');
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, url: '' }))).toBe('INVALID_URL 400');
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, url: 'h'.repeat(2049) }))).toBe('INVALID_URL 400');
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, event_types: 'invoice' }))).toBe(
      'INVALID_EVENT_TYPES 400',
    );
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, event_types: ['nope'] }))).toBe(
      'INVALID_EVENT_TYPES 400',
    );
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, description: 'x'.repeat(257) }))).toBe('BAD_REQUEST 400');
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, description: 'a\nb' }))).toBe('BAD_REQUEST 400');
    // Only blanks (line breaks included) is no description at all, not a refusal.
    expect(parseWebhookChallengeRequest({ ...ok, description: ' \r\n\t' }).description).toBeNull();
    expect(codeOf(() => parseWebhookChallengeRequest({ ...ok, wallet: WALLET }))).toBe('no error');
  });

  it('parses the register request, mapping fields to codes', () => {
    expect(parseWebhookRegisterRequest({ nonce: 'n', signature: 's' })).toEqual({ nonce: 'n', signature: 's' });
    expect(codeOf(() => parseWebhookRegisterRequest({ signature: 's' }))).toBe('CHALLENGE_INVALID 400');
    expect(codeOf(() => parseWebhookRegisterRequest({ nonce: 'n' }))).toBe('SIGNATURE_INVALID 401');
  });
});

describe('retry schedule', () => {
  it('draws uniformly in [0, min(6 h, 10 s × 2^(n−1))]', () => {
    const top = () => 0.999_999_999_9;
    expect([1, 2, 3, 4, 5].map((n) => retryDelayMs(n, top))).toEqual([10_000, 20_000, 40_000, 80_000, 160_000]);
    expect(retryDelayMs(11, top)).toBe(10_240_000);
    expect(retryDelayMs(12, top)).toBe(20_480_000); // 5 h 41 min, still under the cap
    expect(retryDelayMs(13, top)).toBe(21_600_000); // 40_960_000 capped at 6 h
    expect(retryDelayMs(1000, top)).toBe(21_600_000);
    expect(retryDelayMs(3, () => 0)).toBe(0);
    expect(retryDelayMs(3, () => 0.5)).toBe(20_000);
  });

  it('rejects retry numbers below 1', () => {
    expect(() => retryDelayMs(0)).toThrow(RangeError);
    expect(() => retryDelayMs(1.5)).toThrow(RangeError);
  });

  it('stays inside the bound for random draws', () => {
    for (let i = 0; i < 1000; i++) {
      const n = 1 + (i % 14);
      const d = retryDelayMs(n);
      expect(d).toBeGreaterThanOrEqual(0);
      expect(d).toBeLessThanOrEqual(Math.min(21_600_000, 10_000 * 2 ** (n - 1)));
    }
  });

  it('dead-letters at the 6th failed attempt', () => {
    expect(afterFailedAttempt(1, () => 0.5)).toEqual({ dead: false, delayMs: 5_000 });
    expect(afterFailedAttempt(5, () => 0)).toEqual({ dead: false, delayMs: 0 });
    expect(afterFailedAttempt(6)).toEqual({ dead: true });
  });

  it('pins the limits', () => {
    expect(WEBHOOK_LIMITS).toMatchObject({
      perAccount: 25,
      maxAttempts: 6,
      autoPauseAfterDead: 50,
      deliveriesPerMinute: 60,
      maxBodyBytes: 65_536,
      responseTimeoutMs: 10_000,
      challengeTtlSeconds: 600,
      deliveriesPageDefault: 50,
      deliveriesPageMax: 200,
      signatureToleranceSeconds: 300,
    });
  });
});

describe('objects', () => {
  it('delivery page limit: 1..200, default 50', () => {
    expect(DeliveryListQuerySchema.parse({})).toEqual({ limit: 50 });
    expect(DeliveryListQuerySchema.parse({ limit: '200' })).toEqual({ limit: 200 });
    expect(DeliveryListQuerySchema.safeParse({ limit: '0' }).success).toBe(false);
    expect(DeliveryListQuerySchema.safeParse({ limit: '201' }).success).toBe(false);
    expect(DeliveryListQuerySchema.safeParse({ limit: '2.5' }).success).toBe(false);
  });

  it('the created webhook carries whsub_/whsec_ prefixes', () => {
    const created = {
      id: 'whsub_1',
      scope: { type: 'name', value: '@alice', wallets: [WALLET] },
      url: 'https://x.example/h',
      event_types: ['invoice.paid'],
      description: null,
      status: 'active',
      paused_reason: null,
      created_at: 1,
      updated_at: 1,
      secret: 'whsec_abc',
    };
    expect(WebhookCreatedSchema.parse(created)).toEqual(created);
    expect(WebhookCreatedSchema.safeParse({ ...created, secret: 'abc' }).success).toBe(false);
    expect(WebhookCreatedSchema.safeParse({ ...created, id: 'sub_1' }).success).toBe(false);
  });
});
