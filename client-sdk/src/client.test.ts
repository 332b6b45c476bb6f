// The client's own rules against a scripted fetch: the result union, credentials, the deadline, and retries of the
// spec's retryable conditions only. The real service is exercised by test/sdk/sdk.e2e.test.ts.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createSigilClient, retryable } from './client';
import { classifyResolveFailure, resolveName, reverseLookup } from './resolve';

type Script = (request: Request, n: number) => Response | Promise<Response>;

function scripted(script: Script) {
  const seen: Request[] = [];
  const fetch = async (request: Request) => {
    seen.push(request);
    return script(request, seen.length);
  };
  return { seen, fetch };
}

const json = (status: number, body: unknown) =>
  new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });

describe('createSigilClient', () => {
  it('a success is {ok, status, data, headers}; credentials and path parameters are sent', async () => {
    const { seen, fetch } = scripted(() => json(200, { ok: true }));
    const client = createSigilClient({ baseUrl: 'http://sigil.test/', apiKey: 'sigil_sk_1', session: 'tok', fetch });
    const result = await client.GET('/reverse/{address}', { params: { path: { address: 'a b' } } });
    expect(result).toMatchObject({ ok: true, status: 200, data: { ok: true } });
    expect(seen[0]!.url).toBe('http://sigil.test/reverse/a%20b');
    expect(seen[0]!.headers.get('x-api-key')).toBe('sigil_sk_1');
    expect(seen[0]!.headers.get('authorization')).toBe('Bearer tok');
    const anonymous = createSigilClient({ baseUrl: 'http://sigil.test', fetch }).withSession(undefined);
    await anonymous.GET('/health');
    expect(seen[1]!.headers.get('x-api-key')).toBeNull();
    expect(seen[1]!.headers.get('authorization')).toBeNull();
  });

  it('failures are {ok: false, status, code, message}: /v1 code, public error text, 204 without data', async () => {
    const { fetch } = scripted((request) =>
      request.url.endsWith('/v1/usage')
        ? json(401, { code: 'INVALID_SESSION', message: 'no session' })
        : request.method === 'DELETE'
          ? new Response(null, { status: 204 })
          : json(404, { error: 'handle not registered', input: 'nobody' }),
    );
    const client = createSigilClient({ baseUrl: 'http://sigil.test', fetch });
    expect(await client.GET('/v1/usage')).toMatchObject({
      ok: false,
      status: 401,
      code: 'INVALID_SESSION',
      message: 'no session',
    });
    expect(await client.GET('/resolve/{name}', { params: { path: { name: 'nobody' } } })).toMatchObject({
      ok: false,
      status: 404,
      code: 'handle not registered',
      message: 'handle not registered',
      body: { error: 'handle not registered', input: 'nobody' },
    });
    const deleted = await client.DELETE('/v1/pay/webhooks/{id}', { params: { path: { id: 'whsub_1' } } });
    expect(deleted).toMatchObject({ ok: true, status: 204, data: undefined });
  });

  it('an error body that is not the documented JSON is UNEXPECTED_RESPONSE', async () => {
    const { fetch } = scripted(() => new Response('<html>bad gateway</html>', { status: 503 }));
    const client = createSigilClient({ baseUrl: 'http://sigil.test', fetch, retry: false });
    expect(await client.GET('/health')).toMatchObject({ ok: false, status: 503, code: 'UNEXPECTED_RESPONSE' });
  });

  it('retries a 502 and the retryable x402 codes, up to `attempts`, and nothing else', async () => {
    const codes = ['RPC_ERROR', 'RPC_ERROR', 'RPC_ERROR', 'RPC_ERROR'];
    const flaky = scripted((_r, n) => (n < 3 ? json(502, { code: codes[n], message: 'down' }) : json(200, {})));
    const client = createSigilClient({ baseUrl: 'http://sigil.test', fetch: flaky.fetch, retry: { baseDelayMs: 0 } });
    expect(await client.GET('/v1/health')).toMatchObject({ ok: true });
    expect(flaky.seen).toHaveLength(3);

    const down = scripted(() => json(502, { code: 'RPC_ERROR', message: 'down' }));
    const two = createSigilClient({
      baseUrl: 'http://sigil.test',
      fetch: down.fetch,
      retry: { attempts: 2, baseDelayMs: 0 },
    });
    expect(await two.GET('/v1/health')).toMatchObject({ ok: false, status: 502, code: 'RPC_ERROR' });
    expect(down.seen).toHaveLength(2);

    for (const [status, code, calls] of [
      [402, 'PAYMENT_NOT_FINALIZED', 3],
      [402, 'VERIFIER_UNAVAILABLE', 3],
      [503, 'METERING_UNAVAILABLE', 3],
      [402, 'PAYER_REQUIRED', 1],
      [429, 'RATE_LIMITED', 1],
      [400, 'BAD_REQUEST', 1],
      [404, 'HANDLE_NOT_REGISTERED', 1],
    ] as const) {
      const s = scripted(() => json(status, { code, message: code }));
      const c = createSigilClient({ baseUrl: 'http://sigil.test', fetch: s.fetch, retry: { baseDelayMs: 0 } });
      await c.GET('/v1/resolve/{name}', { params: { path: { name: 'alice' } } });
      expect(s.seen.length, code).toBe(calls);
    }
  });

  it('no answer: NETWORK_ERROR, retried for GET only; a hung request ends at the deadline as TIMEOUT', async () => {
    const refused = scripted(() => Promise.reject(new TypeError('fetch failed')));
    const client = createSigilClient({ baseUrl: 'http://sigil.test', fetch: refused.fetch, retry: { baseDelayMs: 0 } });
    expect(await client.GET('/health')).toMatchObject({ ok: false, status: 0, code: 'NETWORK_ERROR' });
    expect(refused.seen).toHaveLength(3);
    await client.POST('/v1/resolve/batch', { body: { names: ['alice'] } });
    expect(refused.seen).toHaveLength(4);

    const hung = scripted(
      (request) =>
        new Promise<Response>((_resolve, reject) =>
          request.signal.addEventListener('abort', () => reject(request.signal.reason)),
        ),
    );
    const patient = createSigilClient({ baseUrl: 'http://sigil.test', fetch: hung.fetch, timeoutMs: 20, retry: false });
    expect(await patient.GET('/health')).toMatchObject({ ok: false, status: 0, code: 'TIMEOUT' });
  });

  it('retryable(): 502, the three x402 codes, and an unanswered GET', () => {
    expect(retryable({ status: 502, code: 'rpc unreachable' }, 'GET')).toBe(true);
    expect(retryable({ status: 502, code: 'RPC_ERROR' }, 'POST')).toBe(true);
    expect(retryable({ status: 0, code: 'TIMEOUT' }, 'GET')).toBe(true);
    expect(retryable({ status: 0, code: 'TIMEOUT' }, 'POST')).toBe(false);
    // Nothing was sent (a path parameter a URL cannot carry), or a success that was not JSON: a repeat changes nothing.
    expect(retryable({ status: 0, code: 'INVALID_PATH_PARAMETER' }, 'GET')).toBe(false);
    expect(retryable({ status: 0, code: 'UNEXPECTED_RESPONSE' }, 'GET')).toBe(false);
    expect(retryable({ status: 429, code: 'RATE_LIMITED' }, 'GET')).toBe(false);
    expect(retryable({ status: 500, code: 'INTERNAL_ERROR' }, 'GET')).toBe(false);
  });
});

describe('resolve helpers: the spec client-library classifications', () => {
  it.each([
    [409, 'ambiguous: both a handle and a domain shape', 'ambiguous'],
    [409, 'AMBIGUOUS', 'ambiguous'],
    [400, 'invalid handle', 'invalid-handle'],
    [400, 'INVALID_DOMAIN', 'invalid-domain'],
    [400, 'INVALID_NAME', 'unrecognized'],
    [400, 'bad request', 'unrecognized'],
    [404, 'HANDLE_NOT_REGISTERED', 'not-found'],
    [404, 'domain not registered', 'not-found'],
    [404, 'NAME_NOT_FOUND', 'not-found'],
    [404, 'NO_RECORD_FOR_CHAIN', 'no-record-for-chain'],
    [502, 'RPC_ERROR', 'rpc-error'],
    [502, 'malformed account', 'rpc-error'],
    [0, 'TIMEOUT', 'sigil-unreachable'],
    [0, 'NETWORK_ERROR', 'sigil-unreachable'],
    [502, 'UNEXPECTED_RESPONSE', 'sigil-unreachable'],
    [504, 'UNEXPECTED_RESPONSE', 'sigil-unreachable'],
    [401, 'INVALID_KEY', 'request-failed'],
    [429, 'RATE_LIMITED', 'request-failed'],
    [413, 'PAYLOAD_TOO_LARGE', 'request-failed'],
    [500, 'INTERNAL_ERROR', 'request-failed'],
  ] as const)('%i %s → %s', (status, code, kind) => {
    expect(classifyResolveFailure({ ok: false, status, code, message: code }).kind).toBe(kind);
  });

  it('a Sigil that does not answer (nothing listens) is sigil-unreachable, not rpc-error', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise((resolve) => server.close(resolve));
    const client = createSigilClient({ baseUrl: `http://127.0.0.1:${port}`, retry: false });
    expect(await resolveName(client, '@alice')).toMatchObject({
      ok: false,
      status: 0,
      code: 'NETWORK_ERROR',
      kind: 'sigil-unreachable',
    });
  });

  it('not-found carries reason nft-burned when the service says the NFT was burned', () => {
    const burned = { ok: false as const, status: 404, code: 'HANDLE_NOT_REGISTERED' };
    expect(
      classifyResolveFailure({ ...burned, message: '@vault has no current authority (nft-burned)' }),
    ).toMatchObject({ kind: 'not-found', reason: 'nft-burned' });
    expect(classifyResolveFailure({ ...burned, message: '@nobody is not registered' })).not.toHaveProperty('reason');
  });

  it('reverseLookup: no primary is null, not an error; a bad address is unrecognized', async () => {
    const { fetch } = scripted((request) =>
      request.url.endsWith('/bad')
        ? json(400, { error: 'invalid address', input: 'bad' })
        : json(404, { error: 'no primary set', input: 'x' }),
    );
    const client = createSigilClient({ baseUrl: 'http://sigil.test', fetch });
    expect(await reverseLookup(client, 'x')).toStrictEqual({ ok: true, data: null });
    expect(await reverseLookup(client, 'bad')).toMatchObject({ ok: false, kind: 'unrecognized', status: 400 });
  });
});
