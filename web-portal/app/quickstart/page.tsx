import type { Metadata } from 'next';
import Link from 'next/link';
import { portalServerConfig } from '../../lib/server-config';

export const metadata: Metadata = { title: 'SDK quickstart' };

// A server component: static text plus the service's URL from the portal server's environment.
export default function QuickstartPage() {
  const { apiBase } = portalServerConfig();
  return (
    <>
      <h1>SDK quickstart</h1>
      <p className="hint">
        Three steps from a new key to a verified webhook. Every route is described in the{' '}
        <a href={`${apiBase}/docs`}>API docs</a> (OpenAPI: <a href={`${apiBase}/openapi.json`}>openapi.json</a>); the
        SDK&rsquo;s reference is <code>client-sdk/README.md</code> in the repository.
      </p>

      <section aria-labelledby="qs-install">
        <h2 id="qs-install">0. Install the SDK</h2>
        <p>
          <code>@sigil/sdk</code> is not in a registry: the Sigil repository packs it, and your project installs the
          tarball by path. <code>npm run sdk:pack</code> prints that path.
        </p>
        {/* not-runnable: it packs the SDK and installs it into your project (test/sdk/tarball.test.ts does both) */}
        <pre>
          <code className="language-sh">{`npm run sdk:pack          # in the Sigil repository → /path/to/sigil/dist/sigil-sdk-0.23.0.tgz
npm install /path/to/sigil/dist/sigil-sdk-0.23.0.tgz   # in your project`}</code>
        </pre>
      </section>

      <section aria-labelledby="qs-key">
        <h2 id="qs-key">1. Call the API with a key</h2>
        <p>
          <Link href="/keys">Create a key</Link>, keep its secret on your server (here in <code>SIGIL_API_KEY</code>),
          and send it as <code>X-API-Key</code>:
        </p>
        <pre>
          <code className="language-sh">{`curl -s -H "X-API-Key: $SIGIL_API_KEY" ${apiBase}/v1/resolve/alice`}</code>
        </pre>
        <p>
          Every keyed answer carries <code>X-RateLimit-Remaining</code>; a <code>429</code> carries{' '}
          <code>Retry-After</code>. <Link href="/usage">Usage</Link> shows your calls over time.
        </p>
      </section>

      <section aria-labelledby="qs-connect">
        <h2 id="qs-connect">2. Sign your users in with their wallet</h2>
        <p>
          Browsers never hold your key: your backend runs the SDK&rsquo;s Connect proxy, which forwards only the sign-in
          calls and attaches the key.
        </p>
        <pre>
          <code className="language-ts">{`import http from 'node:http';
import { createConnectProxy, connectProxyNodeHandler } from '@sigil/sdk/connect-proxy';

const proxy = createConnectProxy({ baseUrl: '${apiBase}', apiKey: process.env.SIGIL_API_KEY! });
http.createServer(connectProxyNodeHandler(proxy, { prefix: '/api/sigil' })).listen(3000);
// browser: POST /api/sigil/challenge {wallet} → the wallet signs → POST /api/sigil/verify`}</code>
        </pre>
        <p>
          Already using an OpenID Connect library (Auth.js, openid-client)? Register the key as a client instead: in{' '}
          <Link href="/keys">your keys</Link>, open its <strong>OpenID Connect</strong> page and paste the issuer and
          client_id it shows; no Sigil code in your app.
        </p>
      </section>

      <section aria-labelledby="qs-webhooks">
        <h2 id="qs-webhooks">3. Receive payment webhooks</h2>
        <p>
          <Link href="/webhooks">Register an endpoint</Link>, then verify each delivery against its raw body:
        </p>
        <pre>
          <code className="language-ts">{`import http from 'node:http';
import { verifyWebhook } from '@sigil/sdk/webhooks';

http
  .createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk);
    const check = await verifyWebhook(Buffer.concat(chunks), req.headers, [process.env.SIGIL_WHSEC!]);
    if (!check.ok) return res.writeHead(400).end(check.reason);
    res.writeHead(200).end(); // then dedupe on the event id and do the work
  })
  .listen(4000);`}</code>
        </pre>
      </section>
    </>
  );
}
