// A minimal Auth.js application: @auth/core (the engine under next-auth v5) behind a plain node:http server, with
// Sigil configured as a generic OpenID Connect provider exactly as docs/oidc.md tells an integrator to. It serves
// Auth.js's own routes under /auth (its stock sign-in page, the callback, the session) and one page, `/`, that
// shows who the Auth.js session says is signed in. No Next.js build: the framework adapter only translates
// requests, the protocol work is @auth/core's.
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Auth, type AuthConfig } from '@auth/core';

export interface AuthJsApp {
  /** e.g. http://127.0.0.1:41234 */
  base: string;
  /** The redirect URI to register for the client: Auth.js's callback for the `sigil` provider. */
  redirectUri: string;
  /** The claims of every id token Auth.js validated, in order (Auth.js makes the profile from them). */
  readonly idTokenClaims: Record<string, unknown>[];
  /** Configures the provider (the client is registered after the app knows its own address). */
  configure(client: { issuer: string; clientId: string; clientSecret: string }): void;
  close(): Promise<void>;
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

async function toRequest(req: IncomingMessage, base: string): Promise<Request> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  const body = chunks.length ? Buffer.concat(chunks) : undefined;
  return new Request(new URL(req.url ?? '/', base), { method: req.method, headers, body });
}

async function send(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    if (name !== 'set-cookie') headers[name] = value;
  });
  const cookies = response.headers.getSetCookie();
  if (cookies.length) headers['set-cookie'] = cookies;
  res.writeHead(response.status, headers).end(Buffer.from(await response.arrayBuffer()));
}

export async function startAuthJsApp(): Promise<AuthJsApp> {
  let config: AuthConfig | undefined;
  let base = '';
  const idTokenClaims: Record<string, unknown>[] = [];
  const server: Server = createServer((req, res) => {
    void (async () => {
      const request = await toRequest(req, base);
      const path = new URL(request.url).pathname;
      if (!config) return void res.writeHead(503).end('not configured');
      if (path.startsWith('/auth/')) return send(res, await Auth(request, config));
      if (path !== '/') return void res.writeHead(404).end('not found');
      // What a server component does with `auth()`: read the session through Auth.js with the browser's cookies.
      const sessionResponse = await Auth(
        new Request(`${base}/auth/session`, { headers: { cookie: request.headers.get('cookie') ?? '' } }),
        config,
      );
      const session = (await sessionResponse.json()) as { user?: { name?: string } } | null;
      const body = session?.user
        ? `<p id="user">Signed in as ${escapeHtml(session.user.name ?? '')}</p>`
        : `<p id="user">Not signed in</p><p><a id="signin" href="/auth/signin?callbackUrl=%2F">Sign in</a></p>`;
      res
        .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
        .end(`<!doctype html><html lang="en"><head><title>Auth.js app</title></head><body>${body}</body></html>`);
    })().catch((err: unknown) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(String(err));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    base,
    redirectUri: `${base}/auth/callback/sigil`,
    idTokenClaims,
    configure(client) {
      config = {
        basePath: '/auth',
        secret: randomBytes(32).toString('hex'),
        trustHost: true,
        providers: [
          {
            id: 'sigil',
            name: 'Sigil',
            type: 'oidc',
            issuer: client.issuer,
            clientId: client.clientId,
            clientSecret: client.clientSecret,
            authorization: { params: { scope: 'openid profile wallet attestations' } },
            checks: ['pkce', 'state'],
            profile: (p) => {
              idTokenClaims.push(p);
              return { id: p.sub, name: (p.preferred_username ?? p.wallet) as string };
            },
          },
        ],
      };
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
