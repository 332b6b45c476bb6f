// The payer signs only a redemption of its own challenge's reference: the message is rebuilt, never taken on trust.
import { describe, expect, it } from 'vitest';
import type { X402AcceptEntry } from '@sigil/contract/x402';
import { buildRedeemMessage } from './x402';

const REFERENCE = '8sVqTNqHuWGrQLsp6TfsBi5LT4xeN8nTa3pTvzFz2s5d';
const entry = (extra: Partial<X402AcceptEntry['extra']>): X402AcceptEntry =>
  ({
    scheme: 'exact',
    network: 'solana:5T5EYgeMp7Lq1rwESDNZWUyzC3XQUABx',
    asset: 'So11111111111111111111111111111111111111112',
    payTo: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
    amount: '7000',
    maxTimeoutSeconds: 60,
    extra: { feePayer: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T', reference: REFERENCE, ...extra },
  }) as X402AcceptEntry;

describe('buildRedeemMessage', () => {
  it('is `sigil-x402-redeem:v1|<domain tag>` LF `reference:<reference>`, the exact bytes the service offers', () => {
    const offered = `sigil-x402-redeem:v1|api.sigil.test\nreference:${REFERENCE}`;
    expect(buildRedeemMessage(entry({ redeemMessage: offered }))).toBe(offered);
  });

  it.each([
    ['another reference', `sigil-x402-redeem:v1|api.sigil.test\nreference:11111111111111111111111111111111`],
    ['extra bytes', `sigil-x402-redeem:v1|api.sigil.test\nreference:${REFERENCE}\ntransfer all`],
    ['another version', `sigil-x402-redeem:v2|api.sigil.test\nreference:${REFERENCE}`],
    ['arbitrary text', 'please sign this login message'],
  ])('refuses %s before anything is signed', (_why, offered) => {
    expect(() => buildRedeemMessage(entry({ redeemMessage: offered }))).toThrow(
      'the challenge redeemMessage is not a v1 redemption of its own reference',
    );
  });

  it('refuses a challenge without a reference (no X-Payer was sent)', () => {
    expect(() => buildRedeemMessage(entry({ reference: undefined, redeemMessage: undefined }))).toThrow(
      'the challenge has no reference: send X-Payer to get one',
    );
  });
});
