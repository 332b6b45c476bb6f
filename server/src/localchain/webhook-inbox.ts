// The local webhook inbox of `npm start`: an HTTPS receiver on loopback (its certificate from the demo CA, which
// npm start's service trusts) where a developer points a webhook to see deliveries arrive on a laptop, the way the
// Stripe CLI's `listen` or Svix Play do. Each delivery is checked with the receiver-side verifiers a merchant would
// use — the SDK's `verifyWebhook` for `Sigil-Signature` and the stock `standardwebhooks` package for the Standard
// Webhooks headers — shown as one terminal line, and kept (the newest 100) for the portal's inbox page and for
// `npm run webhooks:forward`, which replays each one unchanged to an app on http://localhost. docs/webhooks.md
// "Receiving webhooks on your laptop".
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { verifyWebhook } from '@sigil/client-sdk/webhooks';
import { demoCertificates } from './demo-cert';

/** Port of the inbox under npm start (SIGIL_WEBHOOK_INBOX_PORT moves it). */
export const DEFAULT_WEBHOOK_INBOX_PORT = 8698;
/** Paths under this prefix are the inbox's own API, never deliveries. */
export const INBOX_API = '/_inbox';
const MAX_BODY_BYTES = 1024 * 1024;
/** How many deliveries the inbox keeps: the oldest is dropped when one more arrives. */
export const KEPT_DELIVERIES = 100;

/** One scheme's verdict: `valid`, `invalid` (with the verifier's reason), `unsigned` (no header), `no-secret`. */
export type Verdict = 'valid' | 'unsigned' | 'no-secret' | `invalid: ${string}`;

export interface InboxDelivery {
  /**
   * Order of arrival within one run of the inbox, from 1 with no holes: the forwarder asks for what came after the
   * last one it saw, and a hole before the first one answered means deliveries it never saw were dropped.
   */
  seq: number;
  receivedAt: string;
  method: string;
  path: string;
  /** As received (lower-case names), hop-by-hop ones included. */
  headers: Record<string, string>;
  /** The raw body, base64: replayed byte for byte. */
  bodyBase64: string;
  verification: { sigil: Verdict; standardWebhooks: Verdict };
  /** The status the inbox answered: 204 when a scheme verified, 400 when one failed, 202 when none could be checked. */
  status: number;
}

/** The answer of `GET /_inbox/deliveries?after=<seq>`. */
export interface InboxDeliveries {
  /** This run of the inbox: `seq` starts again from 1 when it changes (npm start was restarted). */
  run: string;
  /** The kept deliveries after `after` (all kept ones without it), oldest first. */
  deliveries: InboxDelivery[];
}

export interface WebhookInbox {
  /** https://127.0.0.1:<port>: register `${url}/<any path>` as a webhook. */
  url: string;
  /** Names this run of the inbox (see InboxDeliveries.run). */
  run: string;
  /** The demo CA's PEM file: what a client of the inbox (the forwarder) trusts. */
  caFile: string;
  deliveries(): readonly InboxDelivery[];
  /** Adds a webhook secret to verify with (the one the registration answered). */
  addSecret(secret: string): void;
  close(): Promise<void>;
}

export interface WebhookInboxOptions {
  port?: number;
  /** Secrets to verify with from the start (SIGIL_WEBHOOK_INBOX_SECRETS). */
  secrets?: readonly string[];
  /** Where the one line per delivery goes (npm start: stdout). */
  log?: (line: string) => void;
}

async function verifySigil(body: Buffer, headers: IncomingMessage['headers'], secrets: string[]): Promise<Verdict> {
  const header = headers['sigil-signature'];
  if (typeof header !== 'string') return 'unsigned';
  if (secrets.length === 0) return 'no-secret';
  // Awaited: the SDK's verifier is synchronous on Node and may be asynchronous where it uses WebCrypto.
  const result = await verifyWebhook(body, header, secrets);
  return result.ok ? 'valid' : `invalid: ${result.reason}`;
}

function verifyStandard(body: Buffer, headers: IncomingMessage['headers'], secrets: string[]): Verdict {
  const trio = ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => headers[name]);
  if (!trio.every((v) => typeof v === 'string')) return 'unsigned';
  if (secrets.length === 0) return 'no-secret';
  const [id, timestamp, signature] = trio as string[];
  const failures: string[] = [];
  // One Webhook per secret: during a rotation overlap either secret's signature is a valid delivery.
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(body, {
        'webhook-id': id!,
        'webhook-timestamp': timestamp!,
        'webhook-signature': signature!,
      });
      return 'valid';
    } catch (err) {
      failures.push((err as Error).message);
    }
  }
  return `invalid: ${failures[0]}`;
}

/** 204 when a scheme verified and none failed, 400 when one failed (as a merchant's receiver answers), else 202. */
function statusOf(verification: InboxDelivery['verification']): number {
  const verdicts = [verification.sigil, verification.standardWebhooks];
  if (verdicts.some((v) => v.startsWith('invalid'))) return 400;
  return verdicts.includes('valid') ? 204 : 202;
}

/** The terminal line: `webhook POST /hook payment.received · Sigil-Signature valid · Standard Webhooks valid → 204`. */
function lineOf(delivery: InboxDelivery, body: Buffer): string {
  let type = '';
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { type?: unknown };
    if (typeof parsed.type === 'string') type = ` ${parsed.type}`;
  } catch {
    // Not JSON: the line says nothing about a type.
  }
  const { sigil, standardWebhooks } = delivery.verification;
  return (
    `webhook inbox: ${delivery.method} ${delivery.path}${type} · Sigil-Signature ${sigil} · ` +
    `Standard Webhooks ${standardWebhooks} → ${delivery.status}`
  );
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(body));
}

/**
 * The request target as a URL, or null when it is not a plain path (origin-form, RFC 9112 §3.2.1): `*`, an absolute
 * URL, or one starting with `//`, which as a URL reference names a host (`//[` an invalid one) rather than a path. The
 * path is appended to a fixed origin, never resolved against it, and the parse is guarded all the same.
 */
function targetOf(req: IncomingMessage): URL | null {
  const target = req.url ?? '';
  if (!target.startsWith('/') || target.startsWith('//')) return null;
  try {
    return new URL(`https://127.0.0.1${target}`);
  } catch {
    return null;
  }
}

/** `after=<seq>`: absent means 0 (everything kept); anything but a whole number ≥ 0 is null. */
function afterOf(url: URL): number | null {
  const raw = url.searchParams.get('after') ?? '0';
  return /^\d+$/.test(raw) ? Number(raw) : null;
}

/** The `{"secret": "whsec_…"}` body of the secrets API, or null. */
function secretOf(body: Buffer): string | null {
  try {
    const { secret } = JSON.parse(body.toString('utf8')) as { secret?: unknown };
    return typeof secret === 'string' && secret.startsWith('whsec_') ? secret : null;
  } catch {
    return null;
  }
}

/**
 * The last resort for a request whose handling threw: 500 with the reason, or a reset once the status line is out.
 * Nothing reaches the process from here: the inbox shares `npm start`'s process, which an uncaught error would end.
 */
function failed(res: ServerResponse, err: unknown): void {
  try {
    if (!res.headersSent)
      return sendJson(res, 500, { error: `the inbox failed on this request: ${(err as Error)?.message ?? err}` });
  } catch {
    // Not even the 500 could be written: the reset below is the answer.
  }
  res.destroy();
}

export async function startWebhookInbox(options: WebhookInboxOptions = {}): Promise<WebhookInbox> {
  const secrets = [...(options.secrets ?? [])];
  const kept: InboxDelivery[] = [];
  let seq = 0;
  const run = randomUUID();
  const { key, cert, caFile } = demoCertificates();

  const receive = async (req: IncomingMessage, res: ServerResponse, body: Buffer) => {
    const verification = {
      sigil: await verifySigil(body, req.headers, secrets),
      standardWebhooks: verifyStandard(body, req.headers, secrets),
    };
    const headers = Object.fromEntries(
      Object.entries(req.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : value!]),
    );
    const delivery: InboxDelivery = {
      seq: ++seq,
      receivedAt: new Date().toISOString(),
      method: req.method ?? 'POST',
      path: req.url ?? '/',
      headers,
      bodyBase64: body.toString('base64'),
      verification,
      status: statusOf(verification),
    };
    kept.push(delivery);
    if (kept.length > KEPT_DELIVERIES) kept.shift();
    options.log?.(lineOf(delivery, body));
    res.writeHead(delivery.status).end();
  };

  const addSecret = (secret: string) => {
    if (!secrets.includes(secret)) secrets.push(secret);
  };

  const api = (req: IncomingMessage, res: ServerResponse, body: Buffer, url: URL) => {
    if (url.pathname === `${INBOX_API}/deliveries` && req.method === 'GET') {
      const after = afterOf(url);
      if (after === null) return sendJson(res, 400, { error: 'after must be a delivery seq (a whole number)' });
      const answer: InboxDeliveries = { run, deliveries: kept.filter((d) => d.seq > after) };
      return sendJson(res, 200, answer);
    }
    if (url.pathname === `${INBOX_API}/secrets` && req.method === 'POST') {
      const secret = secretOf(body);
      if (secret === null) return sendJson(res, 400, { error: 'a JSON body {"secret": "whsec_…"} is expected' });
      addSecret(secret);
      return sendJson(res, 200, { secrets: secrets.length });
    }
    return sendJson(res, 404, { error: 'not found' });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse, chunks: Buffer[], size: number) => {
    if (size > MAX_BODY_BYTES) return sendJson(res, 413, { error: 'payload too large' });
    const body = Buffer.concat(chunks);
    const url = targetOf(req);
    if (!url) return sendJson(res, 400, { error: 'the request target must be a path, such as /hook' });
    if (url.pathname.startsWith(`${INBOX_API}/`)) return api(req, res, body, url);
    return receive(req, res, body);
  };

  const server: Server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    // Every path goes through the one async handler, so that whatever any of them throws ends here as a rejection.
    req.on('end', () => void handle(req, res, chunks, size).catch((err: unknown) => failed(res, err)));
  });
  server.requestTimeout = 10_000;
  server.on('tlsClientError', () => {});
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_WEBHOOK_INBOX_PORT, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    run,
    caFile,
    deliveries: () => kept,
    addSecret,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
