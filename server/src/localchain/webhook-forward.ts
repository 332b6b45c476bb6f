// `npm run webhooks:forward -- http://localhost:4000/hook`: passes every delivery that reaches npm start's local
// webhook inbox on to an app of yours, unchanged — same method, path-independent target, the original headers
// (Sigil-Signature and the Standard Webhooks trio included) and the exact body bytes — so the app verifies the
// service's own signatures, as with `stripe listen --forward-to`. Nothing is re-signed. It finds the inbox through the
// file npm start writes in the data directory (data/webhook-inbox.json; SIGIL_WEBHOOK_INBOX_FILE moves it) and asks
// it for new deliveries twice a second. docs/webhooks.md "Receiving webhooks on your laptop".
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Agent, request, type Dispatcher } from 'undici';
import { INBOX_API, KEPT_DELIVERIES, type InboxDeliveries, type InboxDelivery } from './webhook-inbox';

/**
 * Headers that belong to one hop (RFC 9110 §7.6.1) and that the new hop sets for itself (`host`, `content-length`,
 * `connection`), plus `expect`: a `100-continue` was answered by the inbox, and undici refuses to send one.
 */
const HOP_BY_HOP = new Set([
  'host',
  'connection',
  'keep-alive',
  'proxy-connection',
  'te',
  'transfer-encoding',
  'content-length',
  'upgrade',
  'expect',
]);

/** Where the inbox answers and the CA (PEM) that its certificate chains to: the demo CA of its npm start. */
export interface InboxEndpoint {
  url: string;
  caPem: string;
}

export interface ForwarderOptions {
  inboxUrl: string;
  /** The inbox's CA (PEM): the demo CA. */
  caPem: string;
  /**
   * Finds the inbox again while it does not answer: a restarted npm start has a new demo CA (one per process) and
   * may have another port. Null when it is nowhere to be found yet.
   */
  locate?: () => InboxEndpoint | null;
  target: string;
  log: (line: string) => void;
  intervalMs?: number;
}

/** What the target made of one delivery: its status, or why it could not be asked. */
export type ForwardOutcome = { status: number } | { error: string };

/** The delivery's headers less those of its hop into the inbox (HOP_BY_HOP, and any that `connection` names). */
export function replayedHeaders(headers: Record<string, string>): Record<string, string> {
  const named = (headers.connection ?? '').split(',').map((name) => name.trim().toLowerCase());
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name) && !named.includes(name)));
}

/**
 * Replays one delivery to the target. undici's `request` rather than fetch: it follows no redirect (the service never
 * does, so the app's own answer is what is reported) and adds no header of its own beyond `host`, `connection` and
 * `content-length` (fetch adds accept, accept-language, sec-fetch-mode, accept-encoding and user-agent).
 */
export async function forwardOne(delivery: InboxDelivery, target: string): Promise<ForwardOutcome> {
  try {
    const response = await request(target, {
      method: delivery.method as Dispatcher.HttpMethod,
      headers: replayedHeaders(delivery.headers),
      body: Buffer.from(delivery.bodyBase64, 'base64'),
      signal: AbortSignal.timeout(10_000),
    });
    await response.body.dump();
    return { status: response.statusCode };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** One connection to one inbox: a restarted npm start needs a new one (its CA changed). */
function inboxClient(endpoint: InboxEndpoint) {
  const dispatcher = new Agent({ connect: { ca: endpoint.caPem } });
  return {
    endpoint,
    async list(after: number): Promise<InboxDeliveries> {
      const response = await request(`${endpoint.url}${INBOX_API}/deliveries?after=${after}`, {
        dispatcher,
        signal: AbortSignal.timeout(5_000),
      });
      if (response.statusCode !== 200) {
        await response.body.dump();
        throw new Error(`the inbox answered ${response.statusCode}`);
      }
      return (await response.body.json()) as InboxDeliveries;
    },
    close: () => dispatcher.close(),
  };
}
type InboxClient = ReturnType<typeof inboxClient>;

/** How far the forwarder got: the inbox run it reads, and the last seq of that run it has taken. */
interface Position {
  run: string;
  after: number;
}

/**
 * The deliveries after `position`, moving it to the new run when the inbox was restarted (its seq starts again from 1,
 * so the old position would skip everything), and saying so when some were dropped before they could be read.
 */
async function nextDeliveries(inbox: InboxClient, position: Position, log: (line: string) => void) {
  let answer = await inbox.list(position.after);
  if (answer.run !== position.run) {
    answer = await inbox.list(0);
    log(`webhooks:forward: the inbox was restarted (run ${answer.run}); forwarding its deliveries from the first`);
    position.run = answer.run;
    position.after = 0;
  }
  const first = answer.deliveries[0];
  if (first && first.seq > position.after + 1) log(missedLine(position.after + 1, first.seq - 1));
  return answer.deliveries;
}

/** Seqs `from`–`to` of this run were dropped by the inbox before the forwarder could read them. */
function missedLine(from: number, to: number): string {
  const count = to - from + 1;
  return (
    `webhooks:forward: missed ${count} ${count === 1 ? 'delivery' : 'deliveries'} (seq ${from}–${to}): the inbox ` +
    `keeps only its newest ${KEPT_DELIVERIES}, and these were dropped before they could be read`
  );
}

function outcomeLine(delivery: InboxDelivery, target: string, outcome: ForwardOutcome): string {
  const result = 'status' in outcome ? String(outcome.status) : `(not reachable: ${outcome.error})`;
  return `webhooks:forward: ${delivery.method} ${delivery.path} → ${target} ${result}`;
}

/** Polls the inbox and forwards what arrives after the start (not what was already there); stop() ends it. */
export async function startForwarder(options: ForwarderOptions): Promise<{ stop(): Promise<void> }> {
  let inbox = inboxClient({ url: options.inboxUrl, caPem: options.caPem });
  const start = await inbox.list(0);
  const position: Position = { run: start.run, after: start.deliveries.at(-1)?.seq ?? 0 };
  let unreadable = false;

  /** After a failed read: the inbox's new whereabouts, if `locate` knows of a change. */
  const relocate = async () => {
    const found = options.locate?.();
    if (!found || (found.url === inbox.endpoint.url && found.caPem === inbox.endpoint.caPem)) return;
    await inbox.close();
    inbox = inboxClient(found);
  };

  /** The new deliveries, or none while the inbox cannot be read (said once per outage: npm start takes a while). */
  const read = async (): Promise<InboxDelivery[]> => {
    try {
      const fresh = await nextDeliveries(inbox, position, options.log);
      if (unreadable) options.log('webhooks:forward: the inbox answers again');
      unreadable = false;
      return fresh;
    } catch (err) {
      if (!unreadable) options.log(`webhooks:forward: cannot read the inbox (${(err as Error).message}); retrying`);
      unreadable = true;
      await relocate();
      return [];
    }
  };

  const pass = async () => {
    for (const delivery of await read()) {
      position.after = delivery.seq;
      options.log(outcomeLine(delivery, options.target, await forwardOne(delivery, options.target)));
    }
  };

  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await pass();
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 500));
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      await loop;
      await inbox.close();
    },
  };
}

/** What npm start writes for the forwarder: the inbox's URL and the CA file to trust it with. */
export interface InboxDiscovery {
  url: string;
  caFile: string;
}

/** The inbox that npm start's discovery file points at, or null while there is none (npm start not running). */
function discover(file: string): InboxEndpoint | null {
  try {
    const { url, caFile } = JSON.parse(readFileSync(file, 'utf8')) as InboxDiscovery;
    return { url, caPem: readFileSync(caFile, 'utf8') };
  } catch {
    return null;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const target = process.argv[2];
  if (!target || !/^https?:\/\//.test(target)) {
    process.stderr.write('usage: npm run webhooks:forward -- http://localhost:4000/hook\n');
    process.exit(2);
  }
  const file =
    process.env.SIGIL_WEBHOOK_INBOX_FILE ?? fileURLToPath(new URL('../../../data/webhook-inbox.json', import.meta.url));
  const found = discover(file);
  if (!found) {
    process.stderr.write(`webhooks:forward: no inbox found (${file}): is npm start running?\n`);
    process.exit(1);
  }
  const log = (line: string) => process.stdout.write(`${line}\n`);
  await startForwarder({ inboxUrl: found.url, caPem: found.caPem, locate: () => discover(file), target, log });
  log(`webhooks:forward: ${found.url} → ${target} (Ctrl-C stops)`);
}
