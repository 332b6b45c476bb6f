// Reading an HTTP answer under a size cap, shared by both outbound clients (client.ts for user-supplied URLs,
// upstream.ts for configured upstreams): a body is read whole or refused whole, never truncated.
import type { Dispatcher } from 'undici';

/**
 * The whole body, or null once it is known to pass `maxBytes` (declared or while streaming); the body is destroyed
 * then, so its connection is not kept for a stream nobody reads. A body whose declared length fits is read in one go
 * (no async iteration: the common case, and the cheap one); undici fails a body that runs past its declared length.
 */
export async function readBodyCapped(res: Dispatcher.ResponseData, maxBytes: number): Promise<Buffer | null> {
  const declared = res.headers['content-length'];
  const length = typeof declared === 'string' ? Number(declared) : NaN;
  const refuse = () => {
    res.body.on('error', () => {}).destroy();
    return null;
  };
  if (length > maxBytes) return refuse();
  if (Number.isSafeInteger(length)) return Buffer.from(await res.body.arrayBuffer());
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of res.body) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) return refuse();
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** Response headers as one string per name (lower-cased; repeated values joined with ", ", as fetch joins them). */
export function flatHeaders(headers: Dispatcher.ResponseData['headers']): Record<string, string> {
  const flat: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}
