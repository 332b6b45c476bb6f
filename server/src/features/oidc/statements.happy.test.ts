// The statements each request of an OpenID Connect sign-in runs, counted (not assumed), on SQLite and Postgres:
// authorize (answered with the sign-in page) → challenge → verify → resume → token → userinfo. A change that adds a read or a write
// to a step shows here first (docs/benchmarks.md, OIDC: the sign-in's cost is mostly these statements and the
// library's own work around them).
import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signChallenge } from '@sigil/client-sdk/connect';
import type { Dialect } from '../../platform/db/index';
import { demoWallet } from '../../localchain/scenario';
import { postgresReachable } from '@sigil/test/support/db';
import { CookieBrowser, registerClient, useOidcWorld, type OidcWorld } from '@sigil/test/support/oidc-world';
import { pageBaseOf } from '@sigil/test/support/oidc-page';

/**
 * Per step: what the step's statements touch, on SQLite. A token, code or interaction is read together with the rows
 * the library reads next (its client, grant, and the grant's login with its Connect session): "read ahead".
 */
const EXPECTED: Record<string, string[]> = {
  authorize: ['client', 'upsert Interaction'],
  challenge: ['read ahead Interaction', 'insert connect_challenges'],
  verify: [
    'read ahead Interaction',
    'select connect_challenges',
    'update connect_challenges',
    'insert connect_sessions',
    'upsert Grant',
    'insert oidc_logins',
    'upsert Interaction',
  ],
  resume: [
    'read ahead Interaction',
    'delete Interaction',
    'upsert Session',
    'update oidc_logins',
    'upsert AuthorizationCode',
  ],
  token: ['client', 'read ahead AuthorizationCode', 'consume AuthorizationCode', 'upsert AccessToken'],
  userinfo: ['read ahead AccessToken'],
};

/**
 * On Postgres, each step's writes of the provider's rows are one statement: the grant, the interaction and the login
 * at verify; the session and its sid at resume (and the durability barrier after the consumed challenge; on SQLite
 * an fsync, not a statement).
 */
const EXPECTED_POSTGRES: Record<string, string[]> = {
  ...EXPECTED,
  authorize: ['client', 'write Interaction'],
  verify: [
    'read ahead Interaction',
    'select connect_challenges',
    'update connect_challenges',
    'insert connect_sessions',
    'write Grant, Interaction + login',
    'durability barrier',
  ],
  resume: ['read ahead Interaction', 'write AuthorizationCode, Session + sid, delete Interaction'],
  token: ['client', 'read ahead AuthorizationCode', 'consume AuthorizationCode', 'write AccessToken'],
};

/** A statement, named by what it does; the model of a payload statement is its first parameter. */
function describeStatement(sql: string, parameters: readonly unknown[]): string {
  const model = String(parameters[0]);
  if (sql === 'select txid_current()') return 'durability barrier';
  // The read ahead's model is its next-to-last parameter (its id the last).
  if (sql.includes('from "oidc_payloads" as "p"')) return `read ahead ${String(parameters.at(-2))}`;
  if (sql.includes('from "oidc_clients"')) return 'client';
  if (sql.startsWith('with gone as')) {
    const [models, logins, sids, gone] = [parameters[0], parameters[8], parameters[15], parameters[17]] as string[][];
    return (
      `write ${[...models!].sort().join(', ')}${logins!.length ? ' + login' : ''}${sids!.length ? ' + sid' : ''}` +
      (gone!.length ? `, delete ${gone!.join(', ')}` : '')
    );
  }
  if (sql.includes('from "oidc_logins" inner join "connect_sessions"')) return 'login + Connect session';
  if (sql.startsWith('insert into "oidc_payloads"')) return `upsert ${model}`;
  if (sql.startsWith('select') && sql.includes('from "oidc_payloads"')) return `find ${model}`;
  if (sql.startsWith('update "oidc_payloads"')) return `consume ${String(parameters[1])}`;
  if (sql.startsWith('delete from "oidc_payloads"')) return `delete ${model}`;
  return `${sql.split(' ')[0]} ${/(?:from|into|update) "(\w+)"/.exec(sql)?.[1]}`;
}

function countedWorld(dialect: Dialect) {
  const statements: string[] = [];
  const world = useOidcWorld(dialect, {
    onQuery: (event) => {
      // The usage recorder's periodic flush is not part of any request.
      if (/"(request_log|usage_history)"/.test(event.query.sql)) return;
      statements.push(describeStatement(event.query.sql, event.query.parameters));
    },
  });
  return { world, statements };
}

async function signInCounted({ world, statements }: { world: OidcWorld; statements: string[] }) {
  const registered = await registerClient(world.app, { type: 'confidential' });
  const wallet = await demoWallet('alice');
  const base = world.app.base;
  const steps: Record<string, string[]> = {};
  const step = async <T>(name: string, run: () => Promise<T>): Promise<T> => {
    statements.length = 0;
    const result = await run();
    steps[name] = [...statements].sort();
    return result;
  };
  const browser = new CookieBrowser();
  const verifier = randomBytes(32).toString('base64url');
  const authorize = new URLSearchParams({
    client_id: registered.clientId,
    redirect_uri: registered.redirectUri,
    response_type: 'code',
    scope: 'openid profile wallet attestations',
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  });
  const start = await step('authorize', () => browser.fetch(`${base}/oidc/auth?${authorize}`));
  expect(start.status).toBe(200);
  const page = new URL(pageBaseOf(await start.text())!, base).href;
  const challenge = await step('challenge', () => browser.postJson(`${page}/challenge`, { handle: 'alice' }));
  const proof = await signChallenge(challenge.body, wallet, registered.clientId);
  const verified = await step('verify', () => browser.postJson(`${page}/verify`, { path: 'verify', ...proof }));
  const resume = await step('resume', () => browser.fetch(new URL(verified.body.redirect_to, base).href));
  const code = new URL(resume.headers.get('location')!).searchParams.get('code')!;
  const tokens = await step('token', async () => {
    const res = await fetch(`${base}/oidc/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${registered.clientId}:${registered.clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: registered.redirectUri,
        code_verifier: verifier,
      }),
    });
    expect(res.status).toBe(200);
    return res.json();
  });
  await step('userinfo', async () => {
    const res = await fetch(`${base}/oidc/me`, { headers: { authorization: `Bearer ${tokens.access_token}` } });
    expect(await res.json()).toMatchObject({ preferred_username: 'alice' });
  });
  return steps;
}

const sorted = (steps: Record<string, string[]>) =>
  Object.fromEntries(Object.entries(steps).map(([step, list]) => [step, [...list].sort()]));

describe('statements per request of a sign-in, SQLite', () => {
  const counted = countedWorld('sqlite');
  it('21 in all, each step exactly these', async () => {
    await signInCounted(counted); // the first one also loads the provider's keys
    const steps = await signInCounted(counted);
    expect(steps).toStrictEqual(sorted(EXPECTED));
    expect(Object.values(steps).flat()).toHaveLength(21);
  });
});

describe.skipIf(!postgresReachable)('statements per request of a sign-in, Postgres', () => {
  const counted = countedWorld('postgres');
  it('16 in all and the durability barrier, each step exactly these', async () => {
    await signInCounted(counted);
    const steps = await signInCounted(counted);
    expect(steps).toStrictEqual(sorted(EXPECTED_POSTGRES));
    expect(
      Object.values(steps)
        .flat()
        .filter((s) => s !== 'durability barrier'),
    ).toHaveLength(16);
  });
});
