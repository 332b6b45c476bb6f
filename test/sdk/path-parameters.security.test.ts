// A path parameter reaches only the resource it names. The URL standard removes a `.` segment and resolves `..`
// against the segment before it (their percent-encoded forms too), and an empty segment leaves the route, so `''`,
// `.` and `..` would reach another resource (`/resolve/..` is the service index `GET /`, `/v1/pay/webhooks/..` the
// webhook list). The client refuses them without sending anything; the resolve helpers classify them as the service
// classifies any other malformed value. Against the real service on the local chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSigilClient, resolveAddress, resolveName, reverseLookup, type SigilClient } from '@sigil/client-sdk';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';

let app: KeyedApp;
let keyed: SigilClient;
let anonymous: SigilClient;
/** The paths of the requests that left the client. */
const sent: string[] = [];

beforeAll(async () => {
  app = await startKeyedApp({ dialect: 'sqlite' });
  const recording = (request: Request) => {
    sent.push(new URL(request.url).pathname);
    return fetch(request);
  };
  keyed = createSigilClient({ baseUrl: app.base, apiKey: app.key.secret, fetch: recording });
  anonymous = createSigilClient({ baseUrl: app.base, fetch: recording });
}, 120_000);
afterAll(async () => {
  await app?.close();
});

const UNSENDABLE = ['..', '.', ''];
const refused = { ok: false, status: 0, code: 'INVALID_PATH_PARAMETER' };

describe('values a URL path cannot carry are refused, never sent elsewhere', () => {
  it.each(UNSENDABLE)('resolveName(%j): invalid-handle, nothing sent', async (name) => {
    sent.length = 0;
    const result = await resolveName(anonymous, name);
    expect(result, JSON.stringify(result)).toMatchObject({ ...refused, kind: 'invalid-handle' });
    expect(sent).toEqual([]);
  });

  it.each(UNSENDABLE)('resolveAddress(%j): invalid-handle, nothing sent', async (name) => {
    sent.length = 0;
    const result = await resolveAddress(keyed, name, 'SOL');
    expect(result, JSON.stringify(result)).toMatchObject({ ...refused, kind: 'invalid-handle' });
    expect(sent).toEqual([]);
  });

  it.each(UNSENDABLE)('reverseLookup(%j): unrecognized (an invalid address), nothing sent', async (address) => {
    sent.length = 0;
    const result = await reverseLookup(anonymous, address);
    expect(result, JSON.stringify(result)).toMatchObject({ ...refused, kind: 'unrecognized' });
    expect(sent).toEqual([]);
  });

  it.each(UNSENDABLE)('any operation: GET /v1/pay/webhooks/{id} with id %j is refused, not the list', async (id) => {
    sent.length = 0;
    const result = await keyed.GET('/v1/pay/webhooks/{id}', { params: { path: { id } } });
    expect(result, JSON.stringify(result)).toMatchObject(refused);
    expect(!result.ok && result.message).toContain('a URL path cannot carry it');
    expect(sent).toEqual([]);
  });
});

describe('dots inside a value are sent as they are', () => {
  it('"..." and "a..b" reach the service, which answers with its own classification', async () => {
    sent.length = 0;
    expect(await resolveName(anonymous, '...')).toMatchObject({
      status: 400,
      code: 'invalid handle',
      kind: 'invalid-handle',
    });
    expect(await resolveName(anonymous, 'a..b')).toMatchObject({
      status: 400,
      code: 'invalid handle',
      kind: 'invalid-handle',
    });
    expect(await reverseLookup(anonymous, '...')).toMatchObject({
      status: 400,
      code: 'invalid address',
      kind: 'unrecognized',
    });
    expect(await resolveAddress(keyed, '...')).toMatchObject({
      status: 400,
      code: 'INVALID_HANDLE',
      kind: 'invalid-handle',
    });
    expect(sent).toEqual(['/resolve/...', '/resolve/a..b', '/reverse/...', '/v1/resolve-universal/...']);
  });
});
