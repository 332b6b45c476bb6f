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
