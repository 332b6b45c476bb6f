// Answers made of stored documents: the REST face sends the stored text as the body, the tRPC face the same value,
// plain answers of the same procedure are still validated, and the OpenAPI document is the schema's own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { rawRequest, startTestApp, STORED_ITEMS, StoredProbeSchema, type TestApp } from '@sigil/test/support/http-app';
import { buildOpenApiDocument } from '../platform/http/openapi';
import { storedAnswer, storedArray, StoredJson } from '../platform/stored-json';
import { router } from './init';
import { rest } from './meta';
import { publicProcedure } from './procedures';
import { storedOutput } from './stored-output';

let app: TestApp;
beforeAll(async () => {
  app = await startTestApp();
});
afterAll(() => app.close());

const BODY = '{"items":[{"name":"ålice ✓","n":1},{"name":"bob \\"b\\"","n":2.5}],"value":"x"}';

it('the probe answers with the stored items as written', () => {
  expect(BODY).toBe(`{"items":[${STORED_ITEMS.join(',')}],"value":"x"}`);
});

describe('stored answers on both faces', () => {
  it('REST: the body is the stored text, byte for byte, equal to serializing the validated value', async () => {
    const res = await rawRequest(app.base, 'GET', '/v1/test/stored/x');
    expect(res.status, res.text).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.text).toBe(BODY);
    expect(res.text).toBe(JSON.stringify(StoredProbeSchema.parse(JSON.parse(BODY))));
  });

  it('REST: a plain answer of the same procedure serializes to the same bytes', async () => {
    const res = await rawRequest(app.base, 'GET', '/v1/test/stored/plain');
    expect(res.text).toBe(BODY.replace('"value":"x"', '"value":"plain"'));
  });

  it('a plain answer the schema refuses is still refused (500, nothing of it sent)', async () => {
    const res = await rawRequest(app.base, 'GET', '/v1/test/stored/invalid');
    expect(res.status).toBe(500);
    expect(res.text).not.toContain('"items"');
  });

  it('tRPC: the same value', async () => {
    const input = encodeURIComponent(JSON.stringify({ value: 'x' }));
    const res = await rawRequest(app.base, 'GET', `/trpc/probe.stored?input=${input}`);
    expect(res.status, res.text).toBe(200);
    expect(res.text).toBe(`{"result":{"data":${BODY}}}`);
  });
});

describe('storedOutput', () => {
  const schema = z.object({ a: z.array(z.object({ b: z.string() })) });

  it('lets a stored answer through as the same object, and validates anything else', () => {
    const parser = storedOutput(schema);
    const stored = storedAnswer<z.output<typeof schema>>({ a: [new StoredJson('{"b":"c"}')] });
    expect(parser.parse(stored)).toBe(stored);
    expect(parser.parse({ a: [{ b: 'c', extra: 1 }] })).toStrictEqual({ a: [{ b: 'c' }] });
    expect(() => parser.parse({ a: [{ b: 1 }] })).toThrow();
  });

  it('leaves the OpenAPI document as the schema makes it', () => {
    const routerWith = (output: z.ZodType) =>
      router({
        p: publicProcedure
          .meta(rest('GET', '/v1/test/p', { summary: 'p' }))
          .input(z.object({}))
          .output(output)
          .query(() => ({ a: [] })),
      });
    const info = { version: '0.0.0', baseUrl: 'http://127.0.0.1:8787' };
    const plain = buildOpenApiDocument(routerWith(schema), info);
    const stored = buildOpenApiDocument(routerWith(storedOutput(schema) as z.ZodType), info);
    expect(JSON.stringify(stored)).toBe(JSON.stringify(plain));
    expect(JSON.stringify(plain)).toContain('"b":{"type":"string"}');
  });
});

describe('storedAnswer', () => {
  it("is JSON.stringify's output, with stored parts written as stored", () => {
    const value = {
      s: 'é\u2028"\\',
      n: [1, -0, 2.5e-7, null, undefined, () => 1],
      skip: undefined,
      nested: { t: true, d: new Date(0), own: { toJSON: () => 'own' } },
      stored: new StoredJson('{"x":[1,2]}'),
    };
    const expected =
      '{"s":"é\u2028\\"\\\\","n":[1,0,2.5e-7,null,null,null],"nested":{"t":true,"d":"1970-01-01T00:00:00.000Z",' +
      '"own":"own"},"stored":{"x":[1,2]}}';
    const answer = storedAnswer<unknown>(value);
    expect(answer.text).toBe(expected);
    expect(answer.text).toBe(JSON.stringify(value));
    expect(answer.bytes().equals(Buffer.from(expected))).toBe(true);
    expect(new StoredJson('{"x":[1,2]}').toJSON()).toStrictEqual({ x: [1, 2] });
  });

  it.each([
    ['ASCII', 'ab'],
    ['non-ASCII', 'ü✓'],
    ['ASCII but the last item', 'ab', '✓'],
  ])('a large answer (chunked before encoding) is the same bytes as its text: %s', (_, fill, last = fill) => {
    const items = Array.from(
      { length: 300 },
      (_, i) => new StoredJson(JSON.stringify({ i, s: (i === 299 ? last : fill).repeat(200) })),
    );
    const answer = storedAnswer<unknown>({ items, n: 300 });
    const text = `{"items":[${items.map((i) => i.text).join(',')}],"n":300}`;
    expect(answer.bytes().equals(Buffer.from(text))).toBe(true);
    expect(answer.text).toBe(text);
  });
});

describe('storedArray', () => {
  it.each([
    ['none', []],
    ['one', ['{"a":1}']],
    ['several, non-ASCII among them', ['{"a":1}', '"ü✓"', '[null,{"b":[2]}]']],
  ])('is the array of the stored documents as JSON.stringify writes it: %s', (_, documents: string[]) => {
    const array = storedArray<unknown>(documents);
    const expected = documents.length === 0 ? '[]' : `[${documents.join(',')}]`;
    expect(array.text).toBe(expected);
    expect(array.text).toBe(JSON.stringify(documents.map((d) => JSON.parse(d) as unknown)));
    expect(storedAnswer<unknown>({ events: array, n: 1 }).text).toBe(`{"events":${expected},"n":1}`);
    expect(array.bytes().equals(Buffer.from(expected))).toBe(true);
  });
});
