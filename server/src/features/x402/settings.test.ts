// x402 configuration: off by default, enabled by a pay-to address, defaults and validation of every variable.
import { describe, expect, it } from 'vitest';
import { paymentRails, testConfig } from '../../platform/config';

const PAY_TO = '4Nd1mBQtrMJVYVfKf2PJy9NZUZdTAsp7D4xWLs4gDB4T';

describe('x402 settings', () => {
  it('off without SIGIL_X402_PAY_TO: no rails', () => {
    const config = testConfig();
    expect(config.x402).toBeUndefined();
    expect(paymentRails(config)).toEqual([]);
  });

  it('on with a pay-to address: the wrapped-native default, prices, domain tag from the public URL, the native rail', () => {
    const config = testConfig({ SIGIL_X402_PAY_TO: PAY_TO, SIGIL_PUBLIC_URL: 'https://api.sigil.example/' });
    expect(config.x402).toEqual({
      payTo: PAY_TO,
      asset: 'So11111111111111111111111111111111111111112',
      tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
      prices: { resolve: 5000n, reverse: 5000n, verify: 20000n, gate: 20000n },
      nonceSecret: undefined,
      domainTag: 'api.sigil.example',
      ipLimitPerMinute: 600,
    });
    expect(config.x402!.prices.resolve < config.x402!.prices.verify).toBe(true);
    expect(paymentRails(config)).toEqual(['x1-native']);
    expect(paymentRails(testConfig({ SIGIL_X402_PAY_TO: PAY_TO, SIGIL_CHAIN_NAME: 'solana' }))).toEqual([
      'solana-native',
    ]);
  });

  it('SIGIL_X402_FACILITATOR_URL adds the facilitator rail (trailing slash dropped; timeout 15000 ms unless set)', () => {
    const config = testConfig({
      SIGIL_X402_PAY_TO: PAY_TO,
      SIGIL_PUBLIC_URL: 'https://api.sigil.example/',
      SIGIL_X402_FACILITATOR_URL: 'https://facilitator.example/x402/',
    });
    expect(config.x402!.facilitator).toEqual({
      url: 'https://facilitator.example/x402',
      timeoutMs: 15_000,
      publicUrl: 'https://api.sigil.example',
    });
    expect(paymentRails(config)).toEqual(['x1-native', 'x1-facilitator']);
    const timed = testConfig({
      SIGIL_X402_PAY_TO: PAY_TO,
      SIGIL_X402_FACILITATOR_URL: 'http://127.0.0.1:8698',
      SIGIL_X402_FACILITATOR_TIMEOUT_MS: '2500',
    });
    expect(timed.x402!.facilitator!.timeoutMs).toBe(2500);
    // Without x402 there is no rail at all, and an empty URL is no facilitator.
    expect(paymentRails(testConfig({ SIGIL_X402_FACILITATOR_URL: 'http://127.0.0.1:8698' }))).toEqual([]);
    expect(
      testConfig({ SIGIL_X402_PAY_TO: PAY_TO, SIGIL_X402_FACILITATOR_URL: ' ' }).x402!.facilitator,
    ).toBeUndefined();
  });

  it('another asset has no assumed token program (the transfer’s own is used)', () => {
    const config = testConfig({
      SIGIL_X402_PAY_TO: PAY_TO,
      SIGIL_X402_ASSET: PAY_TO,
      SIGIL_X402_DOMAIN_TAG: 'pay.example',
    });
    expect(config.x402).toMatchObject({ asset: PAY_TO, tokenProgram: undefined, domainTag: 'pay.example' });
  });

  it.each([
    ['SIGIL_X402_PAY_TO', 'not-an-address', 'must be a base58 public key (32 bytes)'],
    ['SIGIL_X402_PRICE_RESOLVE', '0', 'must be a positive integer (smallest units of the asset)'],
    ['SIGIL_X402_PRICE_GATE', '1.5', 'must be a positive integer (smallest units of the asset)'],
    ['SIGIL_X402_PRICE_VERIFY', '99999999999999999999', 'must fit in 64 bits'],
    ['SIGIL_X402_NONCE_SECRET', 'short', 'must be at least 32 characters'],
    ['SIGIL_X402_IP_LIMIT_PER_MINUTE', '0', 'must be at least 1'],
    ['SIGIL_X402_FACILITATOR_URL', 'ftp://facilitator.example', 'must be an http(s) URL'],
    ['SIGIL_X402_FACILITATOR_TIMEOUT_MS', '99', 'must be at least 100'],
    ['SIGIL_X402_FACILITATOR_TIMEOUT_MS', '120001', 'must be at most 120000'],
  ])('%s=%s is refused: %s', (variable, value, reason) => {
    expect(() => testConfig({ SIGIL_X402_PAY_TO: PAY_TO, [variable]: value })).toThrow(
      `invalid configuration: ${variable} ${reason}`,
    );
  });
});
