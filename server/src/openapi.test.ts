// The OpenAPI document as a product: it passes an OpenAPI linter (Redocly's recommended rules) without a problem,
// every operation is documented (summary, description, tag, examples), the examples pass the operation's own
// schemas, success statuses are the ones the routes answer, and security matches the named procedures.
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { appRouter } from './router';
import { buildOpenApiDocument } from './platform/http/openapi';
import { OPERATION_EXAMPLES } from './platform/http/openapi-examples';
import { METERED_ROUTES } from './trpc/procedures';

const doc = buildOpenApiDocument(appRouter, { version: '0.0.0', baseUrl: 'http://127.0.0.1:8787' }) as any;

interface Parser {
  safeParse(value: unknown): { success: boolean; error?: unknown };
}
interface ProcedureDef {
  meta?: { openapi?: { method: string; path: string }; successStatus?: number };
  inputs: Parser[];
  output?: Parser;
}
const procedures = Object.values(
  (appRouter as unknown as { _def: { procedures: Record<string, { _def: ProcedureDef }> } })._def.procedures,
)
  .map((p) => p._def)
  .filter((def) => def.meta?.openapi);

const operations = procedures.map((def) => {
  const { method, path } = def.meta!.openapi!;
  return { key: `${method} ${path}`, def, op: doc.paths[path][method.toLowerCase()] };
});

describe('the OpenAPI document', () => {
  it('passes the Redocly linter (recommended rules) with zero problems', async () => {
    // As redocly.yaml (`npm run lint:openapi`): no license is published (info-license). Everything else of
    // `recommended` applies, errors and warnings.
    const config = await createConfig({ extends: ['recommended'], rules: { 'info-license': 'off' } });
    const problems = await lintFromString({ source: JSON.stringify(doc), config, absoluteRef: '/openapi.json' });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('every operation has a summary, a description, a declared tag and examples', () => {
    const tags = new Set(doc.tags.map((t: { name: string }) => t.name));
    expect(operations.length).toBeGreaterThan(30);
    for (const { key, op } of operations) {
      expect(op.summary, key).toBeTruthy();
      expect(op.description, key).toBeTruthy();
      expect(op.tags?.length, key).toBe(1);
      expect(tags.has(op.tags[0]), `${key}: tag ${op.tags[0]}`).toBe(true);
      expect(OPERATION_EXAMPLES[key], `${key} has no entry in openapi-examples.ts`).toBeDefined();
    }
    expect(Object.keys(OPERATION_EXAMPLES).sort()).toEqual(operations.map((o) => o.key).sort());
  });

  it("every example passes the operation's own input and output schemas and appears in the document", () => {
    for (const { key, def, op } of operations) {
      const example = OPERATION_EXAMPLES[key]!;
      const [success] = Object.keys(op.responses);
      const content = op.responses[success!].content?.['application/json'];
      if (def.output && success !== '204') {
        const parsed = def.output.safeParse(example.response);
        expect(parsed.success, `${key} response: ${JSON.stringify(parsed.error)}`).toBe(true);
        expect(content.example, key).toEqual(example.response);
      }
      const input = { ...example.parameters, ...(example.request as object) };
      for (const parser of def.inputs) {
        const parsed = parser.safeParse(input);
        expect(parsed.success, `${key} input: ${JSON.stringify(parsed.error)}`).toBe(true);
      }
      if (op.requestBody) expect(op.requestBody.content['application/json'].example, key).toEqual(example.request);
      for (const parameter of op.parameters ?? []) {
        if (parameter.in === 'path') expect(parameter.example, `${key} ${parameter.name}`).toBeDefined();
      }
    }
  });

  it('success statuses are the ones the routes answer: 201 for creations, 204 for the webhook delete', () => {
    const successOf = (path: string, method: string) =>
      Object.keys(doc.paths[path][method].responses).filter((s) => /^2/.test(s));
    expect(successOf('/v1/pay/webhooks', 'post')).toEqual(['201']);
    expect(successOf('/v1/keys', 'post')).toEqual(['201']);
    expect(successOf('/v1/pay/webhooks/{id}', 'delete')).toEqual(['204']);
    expect(doc.paths['/v1/pay/webhooks/{id}'].delete.responses['204']).toStrictEqual({ description: 'No content' });
    for (const { key, def, op } of operations) {
      const declared = String(def.meta!.successStatus ?? 200);
      expect(
        Object.keys(op.responses).filter((s) => /^2/.test(s)),
        key,
      ).toEqual([declared]);
    }
  });

  it('security: ApiKey, BearerSession (portal routes), both for the session read, the x402 alternative when metered', () => {
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['ApiKey', 'BearerSession', 'X402Payment']);
    expect(doc.components.securitySchemes.BearerSession).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.components.securitySchemes.X402Payment).toMatchObject({ in: 'header', name: 'PAYMENT-SIGNATURE' });
    expect(doc.paths['/resolve/{name}'].get.security).toEqual([]);
    expect(doc.paths['/v1/namespaces'].get.security).toEqual([]);
    expect(doc.paths['/v1/keys'].get.security).toEqual([{ BearerSession: [] }]);
    expect(doc.paths['/v1/usage'].get.security).toEqual([{ BearerSession: [] }]);
    expect(doc.paths['/v1/auth/session'].get.security).toEqual([{ ApiKey: [], BearerSession: [] }]);
    expect(doc.paths['/v1/pay/webhooks'].post.security).toEqual([{ ApiKey: [] }]);
    // Its INVALID_SESSION is about `subject.session` in the body, not a bearer header.
    expect(doc.paths['/v1/gate/check'].post.security).toEqual([{ ApiKey: [] }]);
    expect(doc.paths['/v1/usage/history'].get.security).toEqual([{ BearerSession: [] }]);
    expect(doc.paths['/v1/usage/history/key'].get.security).toEqual([{ ApiKey: [] }]);
    expect(doc.paths['/v1/identity/events'].get.security).toEqual([{ ApiKey: [] }]);
    expect(doc.paths['/.well-known/jwks.json'].get.security).toEqual([]);
    const metered = operations.filter(({ op }) => op.security.some((s: object) => 'X402Payment' in s));
    expect(metered.map((o) => o.key).sort()).toEqual(Object.keys(METERED_ROUTES).sort());
    for (const { key, op } of metered) {
      expect(op.security, key).toEqual([{ ApiKey: [] }, { X402Payment: [] }]);
      expect(
        op.parameters.find((p: { name: string }) => p.name === 'X-Payer'),
        key,
      ).toMatchObject({ in: 'header' });
      const challenge = op.responses['402'];
      expect(challenge.headers['PAYMENT-REQUIRED'], key).toBeDefined();
      expect(challenge.content['application/json'].schema.allOf, key).toEqual([
        { $ref: '#/components/schemas/X402PaymentRequired' },
      ]);
      expect(challenge.content['application/json'].schema.properties.code.enum, key).toContain('PAYER_REQUIRED');
    }
    expect(doc.components.schemas.X402PaymentRequired.required).toEqual(['x402Version', 'accepts']);
  });

  it('every operation declares what the HTTP layer answers on it: 404, 405, 413 everywhere, 415 with a body', () => {
    for (const { key, op } of operations) {
      const [method, path] = key.split(' ') as [string, string];
      const statuses = Object.keys(op.responses);
      for (const status of ['404', '405', '408', '413', '417', '431', '500']) expect(statuses, key).toContain(status);
      if (['POST', 'PUT', 'PATCH'].includes(method)) expect(statuses, key).toContain('415');
      if (path.includes('{') || ['POST', 'PUT', 'PATCH'].includes(method)) expect(statuses, key).toContain('400');
    }
    const health = doc.paths['/health'].get.responses;
    expect(health['413'].content['application/json'].schema.properties.error.enum).toEqual(['payload too large']);
    const created = doc.paths['/v1/pay/webhooks'].post.responses;
    expect(created['415'].content['application/json'].schema.properties.code.enum).toEqual(['UNSUPPORTED_MEDIA_TYPE']);
    expect(created['413'].content['application/json'].schema.properties.code.enum).toEqual(['PAYLOAD_TOO_LARGE']);
  });

  it('parameter examples have the type of their schema (a query integer is an integer)', () => {
    const limit = doc.paths['/v1/identity/events'].get.parameters.find((p: { name: string }) => p.name === 'limit');
    expect(limit.schema.type).toBe('integer');
    expect(typeof limit.example).toBe('number');
  });

  it('error responses list the operation’s own codes, not the catalog', () => {
    const universal = doc.paths['/v1/resolve-universal/{name}'].get.responses;
    expect(universal['409'].content['application/json'].schema.properties.code.enum).toEqual([
      'PAYMENT_ALREADY_USED',
      'REFERENCE_REUSED',
      'AMBIGUOUS',
    ]);
    expect(universal['404'].content['application/json'].schema.properties.code.enum).toEqual([
      'NO_RECORD_FOR_CHAIN',
      'HANDLE_NOT_REGISTERED',
      'DOMAIN_NOT_REGISTERED',
      'NAME_NOT_FOUND',
      'NOT_FOUND',
    ]);
    expect(doc.paths['/v1/usage'].get.responses['401'].content['application/json'].schema.properties.code.enum).toEqual(
      ['INVALID_SESSION'],
    );
  });
});
