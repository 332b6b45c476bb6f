import { describe, expect, it } from 'vitest';
import {
  PAY_EVENT_NOTICE,
  PAY_EVENTS_SCHEMA,
  PayEventSchema,
  payEventId,
  trimToLimit,
  type PayEvent,
} from './pay-events';

const SIG = '99eUso3aSbE9tqGSTXzo3TLfKb9RkMTURrHKQ1K7Zh3BbeqPevr5E1iCbpTjqHuTFLtfxTTD5ekfVuZFzQyEQf8'; // 64 × 0x07
const PAYER = '9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin';
const PAYEE = 'BPFLoaderUpgradeab1e11111111111111111111111';
const INVOICE = 'Sysvar1nstructions1111111111111111111111111';
const HANDLE = 'SysvarRent111111111111111111111111111111111';
const MINT = 'So11111111111111111111111111111111111111112';
const REF = 'SysvarC1ock11111111111111111111111111111111';

const chain = {
  signature: SIG,
  ixIndex: 0,
  innerIndex: -1,
  slot: 123456,
  blockTime: '2026-01-01T00:00:00.000Z',
  commitment: 'finalized' as const,
  finalized: true as const,
};

function received(memo = 'order 42'): PayEvent {
  return {
    schema: PAY_EVENTS_SCHEMA,
    id: payEventId(SIG, 0, -1, 'payment.received'),
    type: 'payment.received',
    notice: PAY_EVENT_NOTICE,
    chain,
    payment: {
      kind: 'transfer',
      payer: PAYER,
      recipient: PAYEE,
      recipientTokenAccount: null,
      asset: 'native',
      mint: null,
      amount: '1500000',
      fee: '0',
      net: '1500000',
      invoice: null,
      reference: REF,
      references: [REF],
      memo,
      binding: {
        status: 'verified',
        handles: [{ name: 'alice', tld: null, account: HANDLE, basis: 'owner', checkedSlot: 123456 }],
      },
    },
  };
}

describe('payEventId', () => {
  it('is pev_ + base58(sha256("sigil.pay-events/v1|sig|ix|inner|type")) — literal vectors', () => {
    expect(payEventId(SIG, 0, -1, 'payment.received')).toBe('pev_DNSzVioFKaWecQMUmKPZvsKoNp8s6pBAuK9MyEwduSDv');
    expect(payEventId(SIG, 0, -1, 'payment.binding_verified')).toBe('pev_8c8mDDbdo3joRSZqgrFTeqrKQHhMk3in1HYva4euowGv');
    expect(payEventId(SIG, 2, 1, 'invoice.paid')).toBe('pev_AKhD5k8i56aXqLTrAA1bmxTJANcwmxcEhGseZ9ZMn6gy');
  });

  it('differs on every component and rejects bad indexes', () => {
    const ids = new Set([
      payEventId(SIG, 0, -1, 'payment.received'),
      payEventId(SIG, 1, -1, 'payment.received'),
      payEventId(SIG, 0, 0, 'payment.received'),
      payEventId(SIG, 0, -1, 'invoice.paid'),
      payEventId(SIG.slice(1), 0, -1, 'payment.received'),
    ]);
    expect(ids.size).toBe(5);
    expect(() => payEventId(SIG, -1, -1, 'payment.received')).toThrow(RangeError);
    expect(() => payEventId(SIG, 0, -2, 'payment.received')).toThrow(RangeError);
    expect(() => payEventId(SIG, 0, -1, 'payment.sent' as never)).toThrow();
  });
});

describe('PayEventSchema', () => {
  it('accepts a full payment.received payload', () => {
    expect(PayEventSchema.parse(received())).toEqual(received());
  });

  it('accepts each invoice event shape and rejects the wrong one', () => {
    const detail = {
      address: INVOICE,
      payee: PAYEE,
      actor: PAYEE,
      mint: MINT,
      amount: '25',
      expiresAt: '1767225600',
      bound: true,
      handleAccount: HANDLE,
      createIndexed: true,
    };
    const head = { schema: PAY_EVENTS_SCHEMA, id: 'pev_abc', notice: PAY_EVENT_NOTICE, chain, payment: null };
    expect(PayEventSchema.safeParse({ ...head, type: 'invoice.created', invoice: detail }).success).toBe(true);
    expect(PayEventSchema.safeParse({ ...head, type: 'invoice.cancelled', invoice: detail }).success).toBe(true);
    expect(
      PayEventSchema.safeParse({ ...head, type: 'invoice.closed', invoice: { ...detail, closedStatus: 2 } }).success,
    ).toBe(true);
    expect(
      PayEventSchema.safeParse({ ...head, type: 'invoice.closed', invoice: { ...detail, closedStatus: 3 } }).success,
    ).toBe(false);
    expect(PayEventSchema.safeParse({ ...head, type: 'invoice.closed', invoice: detail }).success).toBe(false);
    expect(
      PayEventSchema.safeParse({ ...head, type: 'invoice.created', invoice: { address: INVOICE, payee: PAYEE } })
        .success,
    ).toBe(false);

    const paid = received();
    const invoicePaid = {
      ...paid,
      type: 'invoice.paid',
      payment: { ...paid.payment!, kind: 'invoice', invoice: INVOICE, fee: '1', net: '1499999' },
      invoice: { address: INVOICE, payee: PAYEE },
    };
    expect(PayEventSchema.safeParse(invoicePaid).success).toBe(true);
    expect(PayEventSchema.safeParse({ ...invoicePaid, payment: null }).success).toBe(false);
    expect(
      PayEventSchema.safeParse({ ...paid, type: 'payment.received', payment: { ...paid.payment!, kind: 'invoice' } })
        .success,
    ).toBe(false);
  });

  it('rejects float amounts, wrong commitment and a changed notice', () => {
    const ev = received();
    expect(PayEventSchema.safeParse({ ...ev, payment: { ...ev.payment!, amount: '1.5' } }).success).toBe(false);
    expect(PayEventSchema.safeParse({ ...ev, payment: { ...ev.payment!, amount: 15 } }).success).toBe(false);
    expect(PayEventSchema.safeParse({ ...ev, chain: { ...chain, commitment: 'confirmed' } }).success).toBe(false);
    expect(PayEventSchema.safeParse({ ...ev, notice: 'trust me' }).success).toBe(false);
    expect(PayEventSchema.safeParse({ ...ev, chain: { ...chain, blockTime: null } }).success).toBe(true);
  });

  it('allows memo/references to be missing only when truncated', () => {
    const ev = received();
    const { memo: _m, references: _r, ...payment } = ev.payment!;
    expect(PayEventSchema.safeParse({ ...ev, payment }).success).toBe(false);
    expect(PayEventSchema.safeParse({ ...ev, payment, truncated: true }).success).toBe(true);
  });
});

describe('trimToLimit', () => {
  it('leaves a small body untouched and returns its exact serialization', () => {
    const ev = received();
    const out = trimToLimit(ev);
    expect(out.truncated).toBe(false);
    expect(out.fits).toBe(true);
    expect(out.payload).toBe(ev);
    expect(out.body).toBe(JSON.stringify(ev));
    expect('truncated' in JSON.parse(out.body)).toBe(false);
  });

  it('drops memo and references and sets truncated when over 64 KiB (UTF-8 bytes)', () => {
    // 30,000 × 'é' = 60,000 bytes in UTF-8 but 30,000 UTF-16 units: the limit counts bytes.
    const ev = received('é'.repeat(30_000) + 'x'.repeat(6_000));
    const out = trimToLimit(ev);
    expect(out.truncated).toBe(true);
    expect(out.fits).toBe(true);
    const sent = JSON.parse(out.body);
    expect(sent.truncated).toBe(true);
    expect(sent.payment.memo).toBeUndefined();
    expect(sent.payment.references).toBeUndefined();
    expect(sent.payment.reference).toBe(REF);
    expect(sent.id).toBe(ev.id);
    expect(PayEventSchema.safeParse(sent).success).toBe(true);
    expect(ev.payment!.memo).toHaveLength(36_000); // the input is not mutated
  });

  it('keeps a body of exactly the limit and trims one byte more', () => {
    const base = JSON.stringify(received('')).length;
    expect(trimToLimit(received('x'.repeat(65_536 - base))).truncated).toBe(false);
    expect(trimToLimit(received('x'.repeat(65_537 - base))).truncated).toBe(true);
  });
});
