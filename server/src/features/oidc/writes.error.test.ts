// A resume whose writes cannot be stored: the browser gets an error page, not a code; nothing of the resume is
// stored (the interaction's destroy, the code, the browser session and a replaced session's delete are one write),
// and the browser keeps its cookies, so resuming again once the database accepts writes signs the user in.
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { signChallenge } from '@sigil/client-sdk/connect';
import { demoWallet } from '../../localchain/scenario';
import { postgresReachable } from '@sigil/test/support/db';
import {
  CookieBrowser,
  fixedAuthorizationUrl,
  openSignInPage,
  registerClient,
  useOidcWorld,
  type RegisteredClient,
} from '@sigil/test/support/oidc-world';
import type { Dialect } from '../../platform/db/index';

/** A trigger that refuses to store an authorization code, and its removal, per dialect. */
const REFUSE_CODES: Record<Dialect, { add: string[]; drop: string[] }> = {
  sqlite: {
    add: [
      `create trigger refuse_codes before insert on oidc_payloads when new.model = 'AuthorizationCode'
       begin select raise(abort, 'injected: no codes'); end`,
    ],
    drop: ['drop trigger refuse_codes'],
  },
  postgres: {
    add: [
      `create function refuse_codes() returns trigger language plpgsql as
       $$ begin raise exception 'injected: no codes'; end $$`,
      `create trigger refuse_codes before insert on oidc_payloads for each row
       when (new.model = 'AuthorizationCode') execute function refuse_codes()`,
    ],
    drop: ['drop trigger refuse_codes on oidc_payloads', 'drop function refuse_codes()'],
  },
};

function resumeFailure(dialect: Dialect) {
  const world = useOidcWorld(dialect);
  const run = async (statements: string[]) => {
    for (const text of statements) await sql.raw(text).execute(world.app.database.db);
  };
  const count = async (model: string) =>
    Number(
      (
        await sql<{ n: number | string }>`select count(*) as n from oidc_payloads where model = ${model}`.execute(
          world.app.database.db,
        )
      ).rows[0]!.n,
    );

  const counts = async () => ({
    interactions: await count('Interaction'),
    codes: await count('AuthorizationCode'),
    sessions: await count('Session'),
  });

  /** Proves heidi's wallet on the sign-in page of `authorize`; the URL the page then sends the browser to. */
  async function proveOnPage(browser: CookieBrowser, registered: RegisteredClient, authorize: URL) {
    const { pageUrl } = await openSignInPage(browser, world.app, authorize);
    const wallet = await demoWallet('heidi');
    const challenge = await browser.postJson(`${pageUrl}/challenge`, { wallet: wallet.address });
    const proof = await signChallenge(challenge.body, wallet, registered.clientId);
    const verified = await browser.postJson(`${pageUrl}/verify`, { path: 'verify', ...proof });
    expect(verified.status).toBe(200);
    return new URL(verified.body.redirect_to, world.app.base).href;
  }

  /** With codes refused, the resume answers 500 (HEAD and GET) and stores nothing; once accepted, it succeeds. */
  async function failThenResume(browser: CookieBrowser, registered: RegisteredClient, resumeUrl: string) {
    const before = await counts();
    await run(REFUSE_CODES[dialect].add);
    try {
      // HEAD runs the same resume (the library answers HEAD with the GET route): collected and refused alike.
      const head = await browser.fetch(resumeUrl, { method: 'HEAD' });
      expect(head.status).toBe(500);
      expect(head.headers.getSetCookie()).toEqual([]);
      const refused = await browser.fetch(resumeUrl);
      expect(refused.status).toBe(500);
      expect(refused.headers.get('location')).toBeNull();
      expect(refused.headers.getSetCookie()).toEqual([]);
      expect(refused.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(await refused.text()).toContain('<code>server_error</code>');
      // Nothing of the resume: the interaction is still there, no code, the browser sessions as they were.
      expect(await counts()).toEqual(before);
    } finally {
      await run(REFUSE_CODES[dialect].drop);
    }

    const resumed = await browser.fetch(resumeUrl);
    expect(resumed.status).toBe(303);
    const callback = new URL(resumed.headers.get('location')!);
    expect(callback.origin + callback.pathname).toBe(registered.redirectUri);
    expect(callback.searchParams.get('code')).toMatch(/^[\w-]{20,}$/);
    return before;
  }

  it('an error page instead of the code; nothing stored; the same resume succeeds once writes are accepted', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const browser = new CookieBrowser();
    const resumeUrl = await proveOnPage(browser, registered, fixedAuthorizationUrl(world.app, registered));
    const before = await failThenResume(browser, registered, resumeUrl);
    expect(await counts()).toEqual({
      interactions: before.interactions - 1,
      codes: before.codes + 1,
      sessions: before.sessions + 1,
    });
  });

  it('in a browser already signed in, the session the resume replaces is kept until the resume is saved', async () => {
    const registered = await registerClient(world.app, { type: 'confidential' });
    const browser = new CookieBrowser();
    const first = await proveOnPage(browser, registered, fixedAuthorizationUrl(world.app, registered));
    expect((await browser.fetch(first)).status).toBe(303);
    // Signing in again in the same browser (consent asked again): the library replaces the browser session's id
    // at resume and deletes the old row. Had that delete been stored on its own, the failed resume would have left
    // the browser's cookie naming no session, and every reload would fail on the interaction's session.
    const again = fixedAuthorizationUrl(world.app, registered);
    again.searchParams.set('prompt', 'consent');
    const resumeUrl = await proveOnPage(browser, registered, again);
    const before = await failThenResume(browser, registered, resumeUrl);
    // The old session row gave way to the new one.
    expect(await counts()).toEqual({
      interactions: before.interactions - 1,
      codes: before.codes + 1,
      sessions: before.sessions,
    });
  });
}

describe('a resume that cannot be saved, SQLite', () => resumeFailure('sqlite'));
describe.skipIf(!postgresReachable)('a resume that cannot be saved, Postgres', () => resumeFailure('postgres'));
