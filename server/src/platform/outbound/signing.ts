// The webhook signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, t + '.' + raw body)>`.
// The HMAC key is the secret string exactly as issued (`whsec_…`, UTF-8). Receivers verify with
// client-sdk `verifyWebhook`.
import { createHmac } from 'node:crypto';

export function webhookSignatureV1(secret: string, t: number, rawBody: string | Uint8Array): string {
  return createHmac('sha256', secret).update(`${t}.`).update(rawBody).digest('hex');
}

/** The `Sigil-Signature` header value for one attempt (t = unix seconds of the attempt). */
export function signWebhook(secret: string, t: number, rawBody: string | Uint8Array): string {
  if (!Number.isSafeInteger(t) || t < 0) throw new RangeError('t must be unix seconds');
  return `t=${t},v1=${webhookSignatureV1(secret, t, rawBody)}`;
}

/**
 * Standard Webhooks (standardwebhooks 1.x): the HMAC key is the base64-decoded part of `whsec_<base64>`; the signed
 * string is `<msg id>.<t>.<raw body>`; the value is `v1,<base64 HMAC-SHA256>`.
 */
export function standardWebhookSignature(
  secret: string,
  msgId: string,
  t: number,
  rawBody: string | Uint8Array,
): string {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  return `v1,${createHmac('sha256', key).update(`${msgId}.${t}.`).update(rawBody).digest('base64')}`;
}

/**
 * Every signature header of one attempt, signed with each live secret (the current one first; during a rotation
 * overlap the previous one too): `Sigil-Signature: t=…,v1=…[,v1=…]` and the Standard Webhooks trio, whose
 * `webhook-signature` lists one `v1,<base64>` per secret separated by spaces.
 */
export function signatureHeaders(
  secrets: readonly string[],
  msgId: string,
  t: number,
  rawBody: string | Uint8Array,
): Record<string, string> {
  if (!Number.isSafeInteger(t) || t < 0) throw new RangeError('t must be unix seconds');
  return {
    'Sigil-Signature': [`t=${t}`, ...secrets.map((s) => `v1=${webhookSignatureV1(s, t, rawBody)}`)].join(','),
    'webhook-id': msgId,
    'webhook-timestamp': String(t),
    'webhook-signature': secrets.map((s) => standardWebhookSignature(s, msgId, t, rawBody)).join(' '),
  };
}
