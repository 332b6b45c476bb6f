// `npm run webhooks:forward -- http://localhost:4000/hook`: passes every delivery that reaches npm start's local
// webhook inbox on to an app of yours, unchanged — same method, path-independent target, the original headers
// (Sigil-Signature and the Standard Webhooks trio included) and the exact body bytes — so the app verifies the
// service's own signatures, as with `stripe listen --forward-to`. Nothing is re-signed. It finds the inbox through the
// file npm start writes in the data directory (data/webhook-inbox.json; SIGIL_WEBHOOK_INBOX_FILE moves it) and asks
// it for new deliveries twice a second. docs/webhooks.md "Receiving webhooks on your laptop".
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Agent, fetch } from 'undici';
import { INBOX_API, type InboxDelivery } from './webhook-inbox';

/** Headers that belong to one hop (RFC 9110 §7.6.1) or that fetch sets itself: not replayed. */
const HOP_BY_HOP = new Set(['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade']);

export interface ForwarderOptions {
  inboxUrl: string;
  /** The inbox's CA (PEM): the demo CA. */
  caPem: string;
  target: string;
  log: (line: string) => void;
  intervalMs?: number;
}

/** Replays one delivery to the target; resolves to the target's status (0 when it could not be reached). */
export async function forwardOne(delivery: InboxDelivery, target: string): Promise<number> {
  const headers = Object.entries(delivery.headers).filter(([name]) => !HOP_BY_HOP.has(name));
  const response = await fetch(target, {
    method: delivery.method,
    headers,
    body: Buffer.from(delivery.bodyBase64, 'base64'),
    signal: AbortSignal.timeout(10_000),
  }).catch(() => null);
  await response?.body?.cancel();
  return response?.status ?? 0;
}

/** Polls the inbox and forwards what arrives after the start (not what was already there); stop() ends it. */
export async function startForwarder(options: ForwarderOptions): Promise<{ stop(): Promise<void> }> {
  const dispatcher = new Agent({ connect: { ca: options.caPem } });
  const ask = async (after: number) => {
    const res = await fetch(`${options.inboxUrl}${INBOX_API}/deliveries?after=${after}`, {
      dispatcher,
      signal: AbortSignal.timeout(5_000),
    });
    if (!res.ok) throw new Error(`the inbox answered ${res.status}`);
    return ((await res.json()) as { deliveries: InboxDelivery[] }).deliveries;
  };
  let after = (await ask(0)).at(-1)?.seq ?? 0;
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const fresh = await ask(after).catch((err: Error) => {
        options.log(`webhooks:forward: cannot read the inbox (${err.message}); retrying`);
        return [];
      });
      for (const delivery of fresh) {
        after = delivery.seq;
        const status = await forwardOne(delivery, options.target);
        options.log(
          `webhooks:forward: ${delivery.method} ${delivery.path} → ${options.target} ` +
            (status ? String(status) : '(not reachable)'),
        );
      }
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 500));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      await dispatcher.close();
    },
  };
}

/** What npm start writes for the forwarder: the inbox's URL and the CA file to trust it with. */
export interface InboxDiscovery {
  url: string;
  caFile: string;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = process.argv[2];
  if (!target || !/^https?:\/\//.test(target)) {
    process.stderr.write('usage: npm run webhooks:forward -- http://localhost:4000/hook\n');
    process.exit(2);
  }
  const file =
    process.env.SIGIL_WEBHOOK_INBOX_FILE ?? fileURLToPath(new URL('../../../data/webhook-inbox.json', import.meta.url));
  let discovery: InboxDiscovery;
  try {
    discovery = JSON.parse(readFileSync(file, 'utf8')) as InboxDiscovery;
  } catch {
    process.stderr.write(`webhooks:forward: no inbox found (${file}): is npm start running?\n`);
    process.exit(1);
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  await startForwarder({ inboxUrl: discovery.url, caPem: readFileSync(discovery.caFile, 'utf8'), target, log });
  log(`webhooks:forward: ${discovery.url} → ${target} (Ctrl-C stops)`);
}
