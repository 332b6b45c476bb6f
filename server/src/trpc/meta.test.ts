// Each route lists the codes it may answer from the contract's catalogs, type-checked against its face, and the
// OpenAPI document shows per operation and status exactly those codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_ERRORS, V1_ERRORS, type PublicErrorKey, type V1ErrorCode } from '@sigil/contract/errors';
import { rest } from './meta';
import { METERED_ERRORS } from './procedures';
import { startTestApp, type TestApp } from '@sigil/test/support/http-app';

describe('rest() error codes', () => {
  it('take /v1 codes on /v1 paths and public keys elsewhere (a wrong or misspelt code does not compile)', () => {
    expect(rest('GET', '/v1/x', { summary: 'x', errors: { NAME_NOT_FOUND: '' } }).errors).toEqual({
      NAME_NOT_FOUND: '',
    });
    expect(rest('GET', '/x', { summary: 'x', errors: { NO_PRIMARY_SET: '' } }).errors).toEqual({ NO_PRIMARY_SET: '' });
    // @ts-expect-error a public key on a /v1 route
    rest('GET', '/v1/x', { summary: 'x', errors: { NO_PRIMARY_SET: '' } });
    // @ts-expect-error a /v1 code on a public route
    rest('GET', '/x', { summary: 'x', errors: { NAME_NOT_FOUND: '' } });
    // @ts-expect-error not a code
    rest('GET', '/v1/x', { summary: 'x', errors: { NOT_A_CODE: '' } });
  });
});

describe('rest() replay declarations', () => {
  it('keyedReplay only on a keyed GET answering 200', () => {
    expect(rest('GET', '/v1/x', { summary: 'x', protect: true, keyedReplay: true }).keyedReplay).toBe(true);
    expect(() => rest('GET', '/v1/x', { summary: 'x', keyedReplay: true })).toThrow(/keyedReplay/);
    expect(() => rest('POST', '/v1/x', { summary: 'x', protect: true, keyedReplay: true })).toThrow(/keyedReplay/);
    expect(() => rest('GET', '/v1/x', { summary: 'x', protect: true, keyedReplay: true, successStatus: 204 })).toThrow(
      /keyedReplay/,
    );
  });
});

describe('/openapi.json error responses', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(async () => {
    await app.close();
  });

  it('every error status of every operation lists codes of that status only, as an enum of its face', async () => {
    const doc = await (await fetch(`${app.base}/openapi.json`)).json();
    let checked = 0;
    for (const [path, item] of Object.entries<Record<string, { responses: Record<string, any> }>>(doc.paths)) {
      const v1 = path.startsWith('/v1/');
      for (const [method, op] of Object.entries(item)) {
        for (const [status, response] of Object.entries(op.responses)) {
          if (/^[23]/.test(status)) continue;
          const schema = response.content['application/json'].schema;
          const where = `${method.toUpperCase()} ${path} ${status}`;
          if (v1) {
            const body = status === '402' ? 'X402PaymentRequired' : 'V1Error';
            expect(schema.allOf, where).toEqual([{ $ref: `#/components/schemas/${body}` }]);
            for (const code of schema.properties.code.enum as V1ErrorCode[]) {
              const row = (METERED_ERRORS as Record<string, unknown>)[code];
              const also = typeof row === 'object' ? (row as { alsoStatus: number }).alsoStatus : undefined;
              expect([V1_ERRORS[code], also], `${where}: ${code}`).toContain(Number(status));
              expect(response.description, where).toContain(`\`${code}\``);
            }
          } else {
            expect(schema.allOf, where).toEqual([{ $ref: '#/components/schemas/PublicError' }]);
            const texts = Object.values(PUBLIC_ERRORS)
              .filter(([s]) => s === Number(status))
              .map(([, text]) => text);
            for (const text of schema.properties.error.enum as string[])
              expect(texts, `${where}: ${text}`).toContain(text);
          }
          checked++;
        }
      }
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('a route shows its own codes: POST /v1/auth/verify', async () => {
    const doc = await (await fetch(`${app.base}/openapi.json`)).json();
    const responses = doc.paths['/v1/auth/verify'].post.responses;
    expect(responses['401'].content['application/json'].schema.properties.code.enum).toEqual([
      'API_KEY_REQUIRED',
      'INVALID_KEY',
      'CONTROL_PROOF_INVALID',
      'CHALLENGE_NOT_FOUND',
      'CHALLENGE_EXPIRED',
      'CHALLENGE_AUDIENCE_MISMATCH',
    ]);
    expect(responses['400'].content['application/json'].schema.properties.code.enum).toEqual([
      'BAD_REQUEST',
      'INVALID_WALLET',
      'INVALID_SIGNATURE_ENCODING',
    ]);
    // Its own statuses, then the HTTP layer's, which every operation declares (docs/http.md).
    expect(Object.keys(responses).sort()).toEqual([
      '200',
      '400',
      '401',
      '404',
      '405',
      '408',
      '413',
      '415',
      '417',
      '429',
      '431',
      '500',
      '502',
    ]);
    // A metered route also answers the concurrent-settlement codes with 409.
    const metered = doc.paths['/v1/resolve/{name}'].get.responses;
    expect(metered['409'].content['application/json'].schema.properties.code.enum).toEqual([
      'PAYMENT_ALREADY_USED',
      'REFERENCE_REUSED',
      'AMBIGUOUS',
    ]);
    expect(metered['402'].content['application/json'].schema.properties.code.enum).toContain('PAYMENT_ALREADY_USED');
    const keyOf: PublicErrorKey = 'RPC_UNREACHABLE';
    expect(doc.paths['/version'].get.responses['502'].content['application/json'].schema.properties.error.enum).toEqual(
      [PUBLIC_ERRORS[keyOf][1]],
    );
  });
});
