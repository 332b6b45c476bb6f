'use client';
// Which API key the webhook pages use (kept by the portal's backend in an httpOnly cookie: lib/webhook-key.ts).
import { useCallback, useEffect, useState } from 'react';
import { ConnectError } from '../lib/signin';

export interface WebhookKeyState {
  /** undefined while loading. */
  prefix: string | null | undefined;
  use(secret: string): Promise<void>;
  forget(): Promise<void>;
}

export function useWebhookKey(): WebhookKeyState {
  const [prefix, setPrefix] = useState<string | null | undefined>(undefined);
  useEffect(() => {
    fetch('/api/webhook-key', { cache: 'no-store' })
      .then((r) => r.json())
      .then((body: { prefix: string | null }) => setPrefix(body.prefix))
      .catch(() => setPrefix(null));
  }, []);
  const use = useCallback(async (secret: string) => {
    const res = await fetch('/api/webhook-key', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ secret }),
    });
    const body = await res.json().catch(() => ({}));
    if (!res.ok) throw new ConnectError(res.status, body.code ?? 'ERROR', body.message ?? `HTTP ${res.status}`);
    setPrefix(body.prefix);
  }, []);
  const forget = useCallback(async () => {
    await fetch('/api/webhook-key', { method: 'DELETE' });
    setPrefix(null);
  }, []);
  return { prefix, use, forget };
}
