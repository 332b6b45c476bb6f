// The host's happy paths over real HTTP: both faces, decoding once, raw body, request ids, logs, metrics, docs.
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest, startTestApp, type TestApp } from '@sigil/test/support/http-app';

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t.close());

const req = (method: string, path: string, opts?: Parameters<typeof rawRequest>[3]) =>
  rawRequest(t.base, method, path, opts);

describe('path parameters are percent-decoded exactly once', () => {
  it.each([
    ['/test/echo/%40Alice', '@Alice'],
    ['/test/echo/@alice', '@alice'],
    ['/test/echo/a%2Fb', 'a/b'],
    ['/test/echo/%2540', '%40'], // decoding twice would give "@"
    ['/test/echo/%C3%A9t%C3%A9', 'été'],
    ['/v1/test/echo/%40bob', '@bob'],
  ])('%s → %s', async (path, value) => {
    const res = await req('GET', path);
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual({ value });
  });

  it('the tRPC face takes input as sent, with no second decoding', async () => {
    const input = encodeURIComponent(JSON.stringify({ value: '%40Alice' }));
    const res = await req('GET', `/trpc/probe.echo?input=${input}`);
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual({ result: { data: { value: '%40Alice' } } });
  });
});

describe('both faces of one router', () => {
  it('REST and tRPC answer the same procedure', async () => {
    const rest = await req('GET', '/health');
    expect(rest.status).toBe(200);
    expect(rest.json()).toEqual({ ok: true });
    const trpc = await req('GET', '/trpc/health.live');
    expect(trpc.status).toBe(200);
    expect(trpc.json()).toEqual({ result: { data: { ok: true } } });
  });

  it('HEAD on a GET route answers 200 without a body', async () => {
    const res = await req('HEAD', '/health');
    expect(res.status).toBe(200);
    expect(res.text).toBe('');
  });

  it('query strings are coerced by the input schema', async () => {
    const res = await req('GET', '/test/count?n=3');
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual({ n: 3 });
  });

  it('a procedure sees the exact request body bytes (for x402) and the request id', async () => {
    const body = '{ "name" :  "alice" ,"extra":[1, 2]}';
    const res = await req('POST', '/v1/test/body', {
      headers: { 'content-type': 'application/json', 'x-request-id': 'raw-1' },
      body,
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json()).toEqual({ name: 'alice', rawBody: body, requestId: 'raw-1' });
  });

  it('a tRPC mutation sees the exact body bytes too', async () => {
    const body = '{"name":"bob"}';
    const res = await req('POST', '/trpc/probe.body', { headers: { 'content-type': 'application/json' }, body });
    expect(res.status, res.text).toBe(200);
    expect(res.json().result.data).toMatchObject({ name: 'bob', rawBody: body });
  });
});

describe('request ids', () => {
  it('every response carries a generated X-Request-Id', async () => {
    for (const [method, path] of [
      ['GET', '/health'],
      ['GET', '/nope'],
      ['POST', '/resolve/x'],
      ['GET', '/test/echo/%ZZ'],
      ['GET', '/metrics'],
      ['GET', '/trpc/health.live'],
    ]) {
      const res = await req(method!, path!);
      expect(res.headers['x-request-id'], `${method} ${path}`).toMatch(/^req_[1-9A-HJ-NP-Za-km-z]{16,24}$/);
    }
  });

  it('a sane incoming X-Request-Id is kept', async () => {
    const res = await req('GET', '/health', { headers: { 'x-request-id': 'edge-4f3a.91:b_c-d' } });
    expect(res.headers['x-request-id']).toBe('edge-4f3a.91:b_c-d');
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['spaces', 'has space'],
    ['quotes', 'x"y'],
    ['leading punctuation', '-abc'],
    ['non-ascii', 'ïd'],
  ])('an insane one (%s) is replaced', async (_why, id) => {
    const res = await req('GET', '/health', { headers: { 'x-request-id': id } });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('every log line written while serving a request carries its id', async () => {
    const before = t.logs.length;
    await req('GET', '/v1/health', { headers: { 'x-request-id': 'log-check-1' } });
    const lines = t.logs.slice(before).filter((l) => l.requestId === 'log-check-1');
    expect(lines.map((l) => l.msg)).toEqual(['incoming request', 'request completed']);
    for (const line of lines) expect(line).toMatchObject({ level: 'info', service: 'sigil' });
    expect(lines[1]).toMatchObject({ res: { statusCode: 200 } });
  });
});

describe('/metrics', () => {
  it('counts requests and latency per route template, never per raw path', async () => {
    await req('GET', '/test/echo/one');
    await req('GET', '/test/echo/two');
    await req('GET', '/nope/at/all');
    const res = await req('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    const text = res.text;
    expect(text).toMatch(
      /^sigil_http_requests_total\{method="GET",route="\/test\/echo\/\{value\}",status="200"\} ([2-9]|\d\d+)$/m,
    );
    expect(text).toMatch(/^sigil_http_requests_total\{method="GET",route="unmatched",status="404"\} \d+$/m);
    expect(text).toMatch(
      /^sigil_http_request_duration_seconds_bucket\{le="0.005",method="GET",route="\/test\/echo\/\{value\}"\} \d+$/m,
    );
    expect(text).toMatch(/^sigil_http_request_duration_seconds_count\{method="GET",route="\/health"\} \d+$/m);
    expect(text).not.toContain('echo/one');
    expect(text).not.toContain('/nope/at/all');
    expect(text).toContain('# TYPE sigil_rpc_calls_total counter');
    expect(text).toContain('# TYPE sigil_rpc_errors_total counter');
  });

  it('a scrape is counted as the 200 it is, with no error logged', async () => {
    const before = t.logs.length;
    await req('GET', '/metrics');
    const text = (await req('GET', '/metrics')).text;
    expect(text).toMatch(/^sigil_http_requests_total\{method="GET",route="\/metrics",status="200"\} [1-9]\d*$/m);
    expect(text).not.toMatch(/route="\/metrics",status="5\d\d"/);
    const bad = t.logs.slice(before).filter((l) => (l.level as string) === 'warn' || (l.level as string) === 'error');
    expect(bad).toEqual([]);
  });
});

describe('/openapi.json', () => {
  it('is an OpenAPI 3.1 document with the service paths, our error bodies only, and valid JSON Schemas', async () => {
    const res = await req('GET', '/openapi.json');
    expect(res.status).toBe(200);
    const doc = res.json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.title).toBe('Sigil');
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/health', '/version', '/v1/health', '/v1/namespaces']),
    );
    expect(doc.paths['/health'].get.responses['200'].content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/Health',
    });
    expect(doc.paths['/version'].get.responses['502'].content['application/json'].schema).toEqual({
      allOf: [{ $ref: '#/components/schemas/PublicError' }],
      properties: { error: { enum: ['rpc unreachable'] } },
    });
    // Explicitly none: public routes take no credentials.
    expect(doc.paths['/health'].get.security).toEqual([]);

    // Nothing tRPC-shaped survives: no error.* components, no `issues`, no tRPC codes.
    const text = JSON.stringify(doc);
    expect(text).not.toContain('"error.');
    expect(text).not.toContain('issues');
    expect(text).not.toContain('INTERNAL_SERVER_ERROR');

    // Every $ref resolves, and every component is a JSON Schema 2020-12 that compiles.
    for (const [, ref] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) {
      expect(doc.components.schemas[ref!], `dangling $ref ${ref}`).toBeDefined();
    }
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    for (const name of Object.keys(doc.components.schemas)) {
      expect(() => ajv.compile({ $ref: `doc#/components/schemas/${name}` }), name).not.toThrow();
    }
    const publicError = ajv.compile({ $ref: 'doc#/components/schemas/PublicError' });
    expect(publicError({ error: 'not found' })).toBe(true);
    expect(publicError({ error: 'not found', code: 'NOT_FOUND' })).toBe(false);
    const v1Error = ajv.compile({ $ref: 'doc#/components/schemas/V1Error' });
    expect(v1Error({ code: 'BAD_REQUEST', message: 'x' })).toBe(true);
  });

  it('describes real answers: /v1/health validates against its documented schema', async () => {
    const doc = (await req('GET', '/openapi.json')).json();
    const ajv = new Ajv2020({ strict: false });
    ajv.addSchema({ $id: 'doc', components: doc.components });
    const { $ref } = doc.paths['/v1/health'].get.responses['200'].content['application/json'].schema;
    expect($ref).toBe('#/components/schemas/V1Health');
    const validate = ajv.compile({ $ref: `doc${$ref}` });
    const body = (await req('GET', '/v1/health')).json();
    expect(validate(body), JSON.stringify(validate.errors)).toBe(true);
  });
});

describe('GET / (the index)', () => {
  it('links the docs, the OpenAPI document and the health checks on the public address; no portal unless set', async () => {
    const res = await req('GET', '/');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.json()).toEqual({
      service: 'sigil',
      links: {
        docs: `${t.config.publicUrl}/docs`,
        openapi: `${t.config.publicUrl}/openapi.json`,
        health: `${t.config.publicUrl}/health`,
        ready: `${t.config.publicUrl}/ready`,
      },
    });
    for (const link of ['/docs', '/openapi.json', '/health']) expect((await req('GET', link)).status, link).toBe(200);
  });

  it('links the portal when SIGIL_PORTAL_URL is set', async () => {
    const other = await startTestApp({
      env: { SIGIL_PUBLIC_URL: 'https://api.example.test', SIGIL_PORTAL_URL: 'http://127.0.0.1:3000/' },
    });
    try {
      expect((await rawRequest(other.base, 'GET', '/')).json()).toEqual({
        service: 'sigil',
        links: {
          docs: 'https://api.example.test/docs',
          openapi: 'https://api.example.test/openapi.json',
          health: 'https://api.example.test/health',
          ready: 'https://api.example.test/ready',
          portal: 'http://127.0.0.1:3000',
        },
      });
    } finally {
      await other.close();
    }
  });
});

describe('/docs', () => {
  it('serves the Swagger UI page and its assets from the installed package, pointing at our document', async () => {
    const page = await req('GET', '/docs');
    expect(page.status).toBe(200);
    expect(page.headers['content-type']).toMatch(/^text\/html/);
    expect(page.text).toContain('swagger-ui');
    const assets = [...page.text.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(2);
    for (const asset of assets) {
      expect(asset, 'no CDN').not.toMatch(/^(https?:)?\/\//);
      const url = new URL(asset, `${t.base}/docs/`);
      const res = await req('GET', url.pathname);
      expect(res.status, `${url.pathname}: ${res.text.slice(0, 80)}`).toBe(200);
    }
    const css = await req('GET', '/docs/static/swagger-ui.css');
    expect(css.headers['content-type']).toMatch(/^text\/css/);
    const js = await req('GET', '/docs/static/swagger-ui-bundle.js');
    expect(js.status).toBe(200);
    expect(js.text.length).toBeGreaterThan(100_000);
    const spec = await req('GET', '/docs/json');
    expect(spec.json().info.title).toBe('Sigil');
    // The page renders the served document, examples and security schemes included.
    expect(spec.json()).toStrictEqual((await req('GET', '/openapi.json')).json());
    const resolve = spec.json().paths['/resolve/{name}'].get;
    expect(resolve.responses['200'].content['application/json'].example).toMatchObject({ input: '@alice' });
    expect(Object.keys(spec.json().components.securitySchemes)).toEqual(['ApiKey', 'BearerSession', 'X402Payment']);
  });
});

describe('request ids', () => {
  it('are unique across many requests (pooled randomness never repeats a slice)', async () => {
    const { newRequestId } = await import('./request-id');
    const ids = new Set(Array.from({ length: 5000 }, () => newRequestId()));
    expect(ids.size).toBe(5000);
    for (const id of [...ids].slice(0, 50)) expect(id).toMatch(/^req_[1-9A-HJ-NP-Za-km-z]{16,24}$/);
  });
});
