// The published JSON Schema of the policy language agrees with the server's parser: a stock validator (ajv, draft
// 2020-12) accepts what parsePolicy accepts and refuses shapes it refuses.
import { describe, expect, it } from 'vitest';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { parsePolicy, policyJsonSchema } from '@sigil/contract/gate';

const WALLET = '11111111111111111111111111111111';
const validate = new Ajv2020({ strict: false }).compile(policyJsonSchema());

describe('GET /v1/gate/policy.schema.json', () => {
  const accepted = [
    { 'handle.owned': {} },
    { all: [{ 'handle.primary': { handle: '@alice' } }, { not: { 'handle.type': { type: 'agent' } } }] },
    { atLeast: { n: 1, of: [{ attestation: { platform: 'x', issuers: [WALLET], maxAgeSec: 60 } }] } },
    { any: [{ 'record.verified': { chain: 'SOL' } }, { 'agent.level': { min: 'L2' } }] },
    { all: [{ 'token.balance': { mint: WALLET, min: '10' } }, { 'wallet.in': { list: [WALLET] } }] },
  ];
  for (const policy of accepted) {
    it(`accepts ${JSON.stringify(policy).slice(0, 60)}`, () => {
      expect(validate(policy), JSON.stringify(validate.errors)).toBe(true);
      expect(() => parsePolicy(policy)).not.toThrow();
    });
  }

  const refused = [
    { all: [] },
    { some: {} },
    { all: [{ 'handle.type': { type: 'wizard' } }] },
    { 'token.balance': { mint: WALLET, min: 10 } },
    { 'wallet.in': { list: [WALLET], extra: true } },
    { 'handle.owned': {}, 'handle.primary': {} },
  ];
  for (const policy of refused) {
    it(`refuses ${JSON.stringify(policy).slice(0, 60)}`, () => {
      expect(validate(policy)).toBe(false);
      expect(() => parsePolicy(policy)).toThrow();
    });
  }
});
