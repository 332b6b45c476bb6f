'use client';
// Which API key the identity-event log reads with (kept by the portal's backend in an httpOnly cookie:
// lib/webhook-key.ts). Webhooks themselves are managed with the session (owner-key.tsx).
import { useCallback, useEffect, useState } from 'react';
import Link from 'next/link';
import { ConnectError } from '../lib/signin';
import { errorText } from '../lib/trpc';
import { ErrorNotice } from './notice';

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

/** Asks for the API key the event log reads with, when the portal holds none yet. */
export function WithKey({ children }: { children: (key: WebhookKeyState) => React.ReactNode }) {
  const key = useWebhookKey();
  const [secret, setSecret] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  if (key.prefix === undefined) return <p aria-live="polite">Loading…</p>;
  if (key.prefix === null) {
    return (
      <section aria-labelledby="webhook-key-heading">
        <h2 id="webhook-key-heading">Choose the API key for the event log</h2>
        <p>
          The event log is a keyed read. Paste a key&rsquo;s secret (the portal keeps it for this browser session only,
          out of reach of page scripts), or <Link href="/keys">create a key</Link> and choose &ldquo;Use this key for
          the event log&rdquo;.
        </p>
        <form
          className="inline"
          onSubmit={async (e) => {
            e.preventDefault();
            setError('');
            setBusy(true);
            try {
              await key.use(secret.trim());
              setSecret('');
            } catch (err) {
              setError(errorText(err));
            } finally {
              setBusy(false);
            }
          }}
        >
          <label>
            API key secret
            <input
              type="password"
              value={secret}
              onChange={(e) => setSecret(e.target.value)}
              autoComplete="off"
              placeholder="sigil_sk_…"
              required
            />
          </label>
          <button type="submit" disabled={busy}>
            {busy ? 'Checking…' : 'Use this key'}
          </button>
        </form>
        <ErrorNotice>{error}</ErrorNotice>
      </section>
    );
  }
  return <>{children(key)}</>;
}

/** Which key the event log reads with, with a way to switch. */
export function ManagingKey({ webhookKey }: { webhookKey: WebhookKeyState }) {
  return (
    <p className="hint">
      Reading with key <span className="mono">{webhookKey.prefix}…</span>{' '}
      <button type="button" className="secondary" onClick={() => void webhookKey.forget()}>
        Use another key
      </button>
    </p>
  );
}
