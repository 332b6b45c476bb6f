// What every procedure's input step refuses before anything reads or writes (trpc/init.ts), over real HTTP on both
// databases: text holding U+0000 (Postgres refuses it as a parameter), a JSON body that is not an object (merged with
// the path parameters, it would become a valid input), and a body whose media type is not JSON.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DIALECTS, postgresReachable } from '@sigil/test/support/db';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { portalSession, show } from '@sigil/test/support/connect-world';
import { demoWallet } from '../localchain/scenario';

const NUL_REFUSED = { code: 'BAD_REQUEST', message: 'text may not contain the character U+0000' };

for (const dialect of DIALECTS) {
  const run = dialect === 'postgres' && !postgresReachable ? describe.skip : describe;
  run(`the input step [${dialect}]`, () => {
    let app: KeyedApp;
    let token: string;
    beforeAll(async () => {
      app = await startKeyedApp({ dialect });
      token = (await portalSession(app, await demoWallet('grace'))).token;
    });
    afterAll(() => app?.close());

    const keyCount = async () => (await app.call('GET', '/v1/keys', { bearer: token })).body.keys.length as number;

    it('refuses U+0000 in a path parameter, a body field, a query parameter and a body key with 400 BAD_REQUEST', async () => {
      const before = await keyCount();
      const answers = [
        await app.call('DELETE', '/v1/keys/a%00b', { bearer: token }),
        await app.call('PATCH', '/v1/keys/a%00b', { bearer: token, body: { name: 'x' } }),
        await app.call('POST', '/v1/keys', { bearer: token, body: { name: 'a\u0000b' } }),
        await app.call('POST', '/v1/auth/verify', {
          key: app.key.secret,
          body: { nonce: 'a\u0000b', wallet: 'x', signature: 'y' },
        }),
        await app.call('GET', '/v1/gate/policies/a%00b', { key: app.key.secret }),
        await app.call('POST', '/v1/keys', { bearer: token, body: { ['na\u0000me']: 'x' } }),
      ];
      for (const res of answers) {
        expect(res.status, show(res)).toBe(400);
        expect(res.body).toEqual(NUL_REFUSED);
      }
      expect(await keyCount()).toBe(before);
    });

    it('refuses U+0000 on the tRPC face too, with the same message and code', async () => {
      const res = await app.call('POST', '/trpc/keys.create', { bearer: token, body: { name: 'a\u0000b' } });
      expect(res.status, show(res)).toBe(400);
      expect(res.body.error.message).toBe(NUL_REFUSED.message);
      expect(res.body.error.data).toMatchObject({ code: 'BAD_REQUEST', httpStatus: 400, errorCode: 'BAD_REQUEST' });
    });

    it('leaves the public face its own answer for a name holding U+0000', async () => {
      const res = await app.call('GET', '/resolve/a%00b');
      expect(res.status, show(res)).toBe(400);
      expect(res.body).not.toEqual(NUL_REFUSED);
      expect(res.body.error).toBeTypeOf('string');
    });

    it.each([['[]'], ['5'], ['"x"'], ['null'], ['true'], ['[{"name":"zz"}]']])(
      'refuses a JSON body that is not an object (%s) with 400 and creates nothing',
      async (body) => {
        const before = await keyCount();
        const res = await app.call('POST', '/v1/keys', { bearer: token, body });
        expect(res.status, show(res)).toBe(400);
        expect(res.body.code).toBe('BAD_REQUEST');
        expect(await keyCount()).toBe(before);
      },
    );

    it('reads a JSON media type in any case, with parameters; refuses one that only starts like it', async () => {
      for (const type of ['Application/JSON', 'APPLICATION/JSON; charset=utf-8', 'application/json;charset=UTF-8']) {
        const res = await app.call('POST', '/v1/keys', {
          bearer: token,
          body: { name: 'cased' },
          headers: { 'content-type': type },
        });
        expect(res.status, `${type}: ${show(res)}`).toBe(201);
        expect(res.body.key.name).toBe('cased');
      }
      const res = await app.call('POST', '/v1/keys', {
        bearer: token,
        body: '{"name":"x"}',
        headers: { 'content-type': 'application/jsonx' },
      });
      expect(res.status, show(res)).toBe(415);
      expect(res.body.code).toBe('UNSUPPORTED_MEDIA_TYPE');
    });
  });
}
