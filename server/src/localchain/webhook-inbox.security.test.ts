// The local webhook inbox verifies what it is sent: a delivery signed with a known secret is valid under both schemes
// (204); a changed body or another secret's signature is invalid (400, as a merchant's receiver answers); with no
// secret it cannot say (202); its secrets API takes only a `whsec_` secret. It shares npm start's process, so no
// request may throw out of its handler: a malformed request gets a 4xx, a failure inside the inbox a 500, and it keeps
// serving.
import { readFileSync } from 'node:fs';
import { connect } from 'node:tls';
import { Agent, fetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signatureHeaders } from '../platform/outbound/signing';
import { startWebhookInbox, type WebhookInbox } from './webhook-inbox';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER = 'whsec_dGhpcyBpcyBub3QgdGhlIHNlY3JldCBhdCBhbGw=';
let inbox: WebhookInbox;
let dispatcher: Agent;
const lines: string[] = [];

beforeAll(async () => {
  inbox = await startWebhookInbox({ port: 0, secrets: [SECRET], log: (line) => lines.push(line) });
  dispatcher = new Agent({ connect: { ca: readFileSync(inbox.caFile, 'utf8') } });
});
afterAll(async () => {
  await dispatcher.close();
  await inbox.close();
});

const deliver = (body: string, headers: Record<string, string>, path = '/hook') =>
  fetch(`${inbox.url}${path}`, {
    method: 'POST',
    dispatcher,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });
const now = () => Math.floor(Date.now() / 1000);

/** Sends `head` (and optionally hangs up after it) over TLS as written, and resolves to what came back. */
const raw = (target: WebhookInbox, head: string, hangUp = false) =>
  new Promise<string>((resolve, reject) => {
    const { port } = new URL(target.url);
    const socket = connect({ host: '127.0.0.1', port: Number(port), ca: readFileSync(target.caFile, 'utf8') }, () => {
      socket.write(head);
      if (hangUp) socket.destroy();
    });
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    socket.on('close', () => resolve(text));
    socket.on('error', reject);
  });
const statusLine = (response: string) => response.split('\r\n')[0];

describe('the webhook inbox', () => {
  it('a delivery signed with a known secret: both schemes valid, 204, one terminal line', async () => {
    const body = '{"type":"payment.received","test":true}';
    const res = await deliver(body, signatureHeaders([SECRET], 'evt_1', now(), body));
    expect(res.status).toBe(204);
    expect(inbox.deliveries().at(-1)).toMatchObject({
      method: 'POST',
      path: '/hook',
      verification: { sigil: 'valid', standardWebhooks: 'valid' },
      status: 204,
      bodyBase64: Buffer.from(body).toString('base64'),
    });
    expect(lines.at(-1)).toBe(
      'webhook inbox: POST /hook payment.received · Sigil-Signature valid · Standard Webhooks valid → 204',
    );
  });

  it('a body changed after signing is invalid under both schemes: 400', async () => {
    const headers = signatureHeaders([SECRET], 'evt_2', now(), '{"amount":"1"}');
    const res = await deliver('{"amount":"1000"}', headers);
    expect(res.status).toBe(400);
    const { verification } = inbox.deliveries().at(-1)!;
    expect(verification.sigil).toMatch(/^invalid: /);
    expect(verification.standardWebhooks).toMatch(/^invalid: /);
  });

  it("another secret's signature is invalid: 400", async () => {
    const body = '{"type":"payment.received"}';
    const res = await deliver(body, signatureHeaders([OTHER], 'evt_3', now(), body));
    expect(res.status).toBe(400);
  });

  it('an unsigned request is shown as unsigned and answered 202 (nothing verified)', async () => {
    const res = await deliver('{}', {});
    expect(res.status).toBe(202);
    expect(inbox.deliveries().at(-1)!.verification).toEqual({ sigil: 'unsigned', standardWebhooks: 'unsigned' });
  });

  it('with no secret known, a signed delivery is no-secret (202) until the secret is added', async () => {
    const bare = await startWebhookInbox({ port: 0 });
    try {
      const body = '{"type":"invoice.paid"}';
      const send = () =>
        fetch(`${bare.url}/x`, {
          method: 'POST',
          dispatcher,
          body,
          headers: signatureHeaders([SECRET], 'e', now(), body),
        });
      expect((await send()).status).toBe(202);
      expect(bare.deliveries().at(-1)!.verification).toEqual({ sigil: 'no-secret', standardWebhooks: 'no-secret' });
      const refused = await fetch(`${bare.url}/_inbox/secrets`, {
        method: 'POST',
        dispatcher,
        body: JSON.stringify({ secret: 'hunter2' }),
      });
      expect(refused.status).toBe(400);
      const added = await fetch(`${bare.url}/_inbox/secrets`, {
        method: 'POST',
        dispatcher,
        body: JSON.stringify({ secret: SECRET }),
      });
      expect(await added.json()).toEqual({ secrets: 1 });
      expect((await send()).status).toBe(204);
    } finally {
      await bare.close();
    }
  });

  it('the deliveries API lists what came after a given seq, under the run id of this inbox', async () => {
    const all = inbox.deliveries();
    const res = await fetch(`${inbox.url}/_inbox/deliveries?after=${all.at(-2)!.seq}`, { dispatcher });
    expect(await res.json()).toStrictEqual({ run: inbox.run, deliveries: [all.at(-1)] });
  });

  it('each inbox run has its own id, since seq starts again from 1 in each', async () => {
    const other = await startWebhookInbox({ port: 0 });
    try {
      expect(other.run).toMatch(/^[0-9a-f-]{36}$/);
      expect(other.run).not.toBe(inbox.run);
    } finally {
      await other.close();
    }
  });
});

describe('no request throws out of the inbox', () => {
  it('a target that is not a valid URL path (POST //[) gets 400, and the inbox keeps serving', async () => {
    const response = await raw(
      inbox,
      'POST //[ HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}',
    );
    expect(statusLine(response), response).toBe('HTTP/1.1 400 Bad Request');
    expect(response).toContain('{"error":"the request target must be a path, such as /hook"}');
    expect((await deliver('{}', {})).status).toBe(202);
  });

  it('a target that is not a path (OPTIONS *) gets 400 and is not recorded', async () => {
    const before = inbox.deliveries().at(-1)!.seq;
    const response = await raw(inbox, 'OPTIONS * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(statusLine(response), response).toBe('HTTP/1.1 400 Bad Request');
    expect(inbox.deliveries().at(-1)!.seq).toBe(before);
  });

  it('after= that is not a seq gets 400 with the reason', async () => {
    const res = await fetch(`${inbox.url}/_inbox/deliveries?after=abc`, { dispatcher });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'after must be a delivery seq (a whole number)' });
  });

  it('a secrets body that is not JSON gets 400 with the expected shape', async () => {
    const res = await fetch(`${inbox.url}/_inbox/secrets`, { method: 'POST', dispatcher, body: '{"secret":' });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: 'a JSON body {"secret": "whsec_…"} is expected' });
  });

  it('a client that hangs up in the middle of a body leaves the inbox serving', async () => {
    await raw(inbox, 'POST /hook HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"partial":', true);
    expect((await deliver('{}', {})).status).toBe(202);
  });

  it('a failure inside the inbox answers 500 with the reason, and the inbox keeps serving', async () => {
    const broken = await startWebhookInbox({
      port: 0,
      log: () => {
        throw new Error('the terminal is gone');
      },
    });
    try {
      const send = () => fetch(`${broken.url}/hook`, { method: 'POST', dispatcher, body: '{}' });
      const res = await send();
      expect(res.status).toBe(500);
      expect(await res.json()).toEqual({ error: 'the inbox failed on this request: the terminal is gone' });
      expect((await send()).status).toBe(500);
    } finally {
      await broken.close();
    }
  });
});
