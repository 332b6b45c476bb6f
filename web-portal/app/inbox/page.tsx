import type { Metadata } from 'next';
import { readFileSync } from 'node:fs';
import { get } from 'node:https';

export const metadata: Metadata = { title: 'Webhook inbox' };
export const dynamic = 'force-dynamic';

interface InboxDelivery {
  seq: number;
  receivedAt: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  bodyBase64: string;
  verification: { sigil: string; standardWebhooks: string };
  status: number;
}

/**
 * The deliveries npm start's local webhook inbox received (server/src/localchain/webhook-inbox.ts), read on the
 * portal's server over HTTPS with the demo CA that the inbox's discovery file names (SIGIL_WEBHOOK_INBOX_FILE, set by
 * npm start). Null when there is no inbox (a portal run without npm start, or in production).
 */
async function inboxDeliveries(): Promise<{ url: string; deliveries: InboxDelivery[] } | null> {
  const file = process.env.SIGIL_WEBHOOK_INBOX_FILE;
  if (!file) return null;
  try {
    const { url, caFile } = JSON.parse(readFileSync(file, 'utf8')) as { url: string; caFile: string };
    const ca = readFileSync(caFile, 'utf8');
    const text = await new Promise<string>((resolve, reject) => {
      get(`${url}/_inbox/deliveries`, { ca, timeout: 5_000 }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (c: string) => (body += c));
        res.on('end', () => resolve(body));
      })
        .on('timeout', function (this: { destroy(err: Error): void }) {
          this.destroy(new Error('timeout'));
        })
        .on('error', reject);
    });
    return { url, deliveries: (JSON.parse(text) as { deliveries: InboxDelivery[] }).deliveries.reverse() };
  } catch {
    return null;
  }
}

// A server component: one section per delivery, newest first, with its verification, headers and body as received.
export default async function InboxPage() {
  const inbox = await inboxDeliveries();
  if (!inbox)
    return (
      <>
        <h1>Webhook inbox</h1>
        <p className="hint">No local webhook inbox: it runs under npm start only (docs/webhooks.md).</p>
      </>
    );
  return (
    <>
      <h1>Webhook inbox</h1>
      <p className="hint">
        Register <code>{`${inbox.url}/<any path>`}</code> as a webhook URL; deliveries appear here (reload the page).
        Forward them to your app with <code>npm run webhooks:forward -- http://localhost:4000/hook</code>.
      </p>
      {inbox.deliveries.length === 0 && <p>No delivery yet.</p>}
      {inbox.deliveries.map((d) => (
        <section key={d.seq} aria-label={`delivery ${d.seq}`}>
          <h2>
            {d.method} {d.path} → {d.status}
          </h2>
          <p>
            {d.receivedAt} · Sigil-Signature {d.verification.sigil} · Standard Webhooks{' '}
            {d.verification.standardWebhooks}
          </p>
          <table>
            <tbody>
              {Object.entries(d.headers).map(([name, value]) => (
                <tr key={name}>
                  <th scope="row">{name}</th>
                  <td>
                    <code>{value}</code>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <pre>
            <code>{Buffer.from(d.bodyBase64, 'base64').toString('utf8')}</code>
          </pre>
        </section>
      ))}
    </>
  );
}
