// One condition, one code, everywhere: each way a native name can fail is asked of the public resolve, the keyed
// resolve, the universal resolver and the batch (as an item), over real HTTP on the demo scenario. The public face
// renders the condition as its `error` text, the /v1 routes as the same code and status (docs/universal.md).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PUBLIC_ERRORS, V1_ERRORS } from '@sigil/contract/errors';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';

let app: KeyedApp;

beforeAll(async () => {
  app = await startKeyedApp({ dialect: 'sqlite' });
});
afterAll(async () => {
  await app?.close();
});

/** name → the condition's code (shared by both catalogs) and its status. */
const NATIVE_ROWS = [
  ['@satoshi.x1', 'AMBIGUOUS', 409],
  ['bad name', 'INVALID_HANDLE', 400],
  ['-x.x1', 'INVALID_DOMAIN', 400],
  ['nobody', 'HANDLE_NOT_REGISTERED', 404],
  ['nope.x1', 'DOMAIN_NOT_REGISTERED', 404],
] as const;

/** Shapes only the universal resolver classifies (foreign namespaces): no public-face condition to agree with. */
const UNIVERSAL_ROWS = [
  ['foo.sns', 'INVALID_NAME', 400],
  ['a.b.c.sol', 'INVALID_NAME', 400],
] as const;

const path = (name: string) => encodeURIComponent(name);

describe('one condition, one code: /resolve, /v1/resolve, /v1/resolve-universal, /v1/resolve/batch', () => {
  it.each(NATIVE_ROWS)('%s → %s (%i) on every endpoint', async (name, code, status) => {
    expect(PUBLIC_ERRORS[code][0]).toBe(status);
    expect(V1_ERRORS[code]).toBe(status);

    const pub = await app.call('GET', `/resolve/${path(name)}`);
    expect({ status: pub.status, body: pub.body }, pub.text).toStrictEqual({
      status,
      body: { error: PUBLIC_ERRORS[code][1], input: name },
    });
    for (const route of ['/v1/resolve', '/v1/resolve-universal']) {
      const res = await app.call('GET', `${route}/${path(name)}`, { key: app.key.secret });
      expect({ status: res.status, code: res.body.code }, `${route}: ${res.text}`).toStrictEqual({ status, code });
    }
    const batch = await app.call('POST', '/v1/resolve/batch', { key: app.key.secret, body: { names: [name] } });
    expect(batch.status, batch.text).toBe(200);
    expect(batch.body.results[0]).toMatchObject({ input: name, ok: false, error: { status, code } });
  });

  it.each(UNIVERSAL_ROWS)('%s → %s (%i) on the universal resolver and in the batch', async (name, code, status) => {
    const res = await app.call('GET', `/v1/resolve-universal/${path(name)}`, { key: app.key.secret });
    expect({ status: res.status, code: res.body.code }, res.text).toStrictEqual({ status, code });
    const batch = await app.call('POST', '/v1/resolve/batch', { key: app.key.secret, body: { names: [name] } });
    expect(batch.body.results[0]).toMatchObject({ input: name, ok: false, error: { status, code } });
  });

  it('the same message for the same name on the single and batch endpoints', async () => {
    const single = await app.call('GET', '/v1/resolve-universal/nobody', { key: app.key.secret });
    const batch = await app.call('POST', '/v1/resolve/batch', { key: app.key.secret, body: { names: ['nobody'] } });
    expect(batch.body.results[0].error).toStrictEqual({ status: 404, ...single.body });
    expect(single.body).toStrictEqual({ code: 'HANDLE_NOT_REGISTERED', message: '@nobody is not registered' });
  });
});
