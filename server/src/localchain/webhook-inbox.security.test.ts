// The local webhook inbox verifies what it is sent: a delivery signed with a known secret is valid under both schemes
// (204); a changed body or another secret's signature is invalid (400, as a merchant's receiver answers); with no
// secret it cannot say (202); its secrets API takes only a `whsec_` secret.
import { readFileSync } from 'node:fs';
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

  it('the deliveries API lists what came after a given seq', async () => {
    const all = inbox.deliveries();
    const res = await fetch(`${inbox.url}/_inbox/deliveries?after=${all.at(-2)!.seq}`, { dispatcher });
    expect(((await res.json()) as { deliveries: unknown[] }).deliveries).toEqual([all.at(-1)]);
  });
});
