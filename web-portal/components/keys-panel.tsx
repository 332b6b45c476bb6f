'use client';
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { TRPCClientError } from '@trpc/client';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { errorText, trpc } from '../lib/trpc';
import { connectWallet, findInjectedWallet } from '../lib/wallet';

type Outputs = inferRouterOutputs<AppRouter>;
type SessionRead = Outputs['connect']['session'];
type KeyRow = Outputs['keys']['list']['keys'][number];
type Usage = Outputs['keys']['usage'];
type Created = Outputs['keys']['create'];

/** `{code, message}` from the portal's /api/connect (the service's /v1 error body, or the proxy's own). */
async function connectCall<T>(op: string, body?: unknown): Promise<T> {
  const res = await fetch(
    `/api/connect/${op}`,
    body === undefined
      ? { cache: 'no-store' }
      : {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        },
  );
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new ConnectError(res.status, json.code ?? 'ERROR', json.message ?? `HTTP ${res.status}`);
  return json as T;
}

class ConnectError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(`${message} (${code})`);
  }
}

const when = (ms: number | null) => (ms === null ? '—' : new Date(ms).toLocaleString());

export function KeysPanel() {
  const [session, setSession] = useState<SessionRead | null | undefined>(undefined);
  const [status, setStatus] = useState<string>('');
  const [error, setError] = useState<string>('');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    connectCall<SessionRead>('session')
      .then(setSession)
      .catch(() => setSession(null)); // no cookie, expired or revoked: signed out
  }, []);

  async function signIn() {
    setError('');
    const injected = findInjectedWallet();
    if (!injected) {
      setError(
        'No Solana wallet found in this browser. Install a wallet extension (for example Phantom, Backpack or Solflare) and reload.',
      );
      return;
    }
    setBusy(true);
    try {
      setStatus('Connecting to your wallet…');
      const wallet = await connectWallet(injected);
      setStatus('Requesting a sign-in challenge…');
      const challenge = await connectCall<{ nonce: string; challenge: string }>('challenge', {
        wallet: wallet.address,
      });
      setStatus(`Approve the message in your wallet: ${challenge.challenge}`);
      const signature = await wallet.sign(challenge.challenge);
      setStatus('Verifying…');
      setSession(
        await connectCall<SessionRead>('verify', { nonce: challenge.nonce, signature, signer: wallet.address }),
      );
      setStatus('');
    } catch (err) {
      setStatus('');
      setError(`Sign-in failed: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  }

  async function signOut() {
    await fetch('/api/signout', { method: 'POST' });
    setSession(null);
  }

  if (session === undefined) return <p aria-live="polite">Checking your session…</p>;
  if (session === null) {
    return (
      <section aria-labelledby="signin-heading">
        <h2 id="signin-heading">Sign in</h2>
        <p>Your wallet signs a one-time message; no transaction is sent and nothing is paid.</p>
        <button type="button" onClick={signIn} disabled={busy}>
          Sign in with your wallet
        </button>
        <p aria-live="polite" className="hint mono">
          {status}
        </p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
      </section>
    );
  }
  return <SignedIn session={session} onSignOut={signOut} onSessionLost={() => setSession(null)} />;
}

function SignedIn({
  session,
  onSignOut,
  onSessionLost,
}: {
  session: SessionRead;
  onSignOut: () => void;
  onSessionLost: () => void;
}) {
  const [keys, setKeys] = useState<KeyRow[] | null>(null);
  const [usage, setUsage] = useState<Usage | null>(null);
  const [created, setCreated] = useState<Created | null>(null);
  const [name, setName] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  const fail = useCallback(
    (err: unknown) => {
      if (
        err instanceof TRPCClientError &&
        (err.data as { errorCode?: string } | undefined)?.errorCode === 'INVALID_SESSION'
      )
        onSessionLost();
      else setError(errorText(err));
    },
    [onSessionLost],
  );

  const refresh = useCallback(async () => {
    try {
      const [list, totals] = await Promise.all([trpc.keys.list.query({}), trpc.keys.usage.query({})]);
      setKeys(list.keys);
      setUsage(totals);
    } catch (err) {
      fail(err);
    }
  }, [fail]);

  useEffect(() => {
    void refresh();
  }, [refresh]);

  async function create(event: FormEvent) {
    event.preventDefault();
    setError('');
    setBusy(true);
    try {
      setCreated(await trpc.keys.create.mutate(name.trim() ? { name: name.trim() } : {}));
      setName('');
      await refresh();
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  async function revoke(key: KeyRow) {
    if (!window.confirm(`Revoke ${key.name ?? key.id}? Requests with this key will fail at once.`)) return;
    setError('');
    try {
      await trpc.keys.revoke.mutate({ id: key.id });
      if (created?.key.id === key.id) setCreated(null);
      await refresh();
    } catch (err) {
      fail(err);
    }
  }

  return (
    <>
      <section aria-labelledby="account-heading">
        <h2 id="account-heading">Account</h2>
        <dl className="result">
          <dt>Wallet</dt>
          <dd className="mono">{session.address}</dd>
          <dt>Handle</dt>
          <dd>{session.handle ? `@${session.handle}` : 'none (signed in with the wallet address)'}</dd>
          <dt>Proof</dt>
          <dd>
            {session.source}
            {session.verified.length > 0 ? `; attestations: ${session.verified.join(', ')}` : ''}
          </dd>
        </dl>
        <p>
          <button type="button" className="secondary" onClick={onSignOut}>
            Sign out
          </button>
        </p>
      </section>

      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}

      <section aria-labelledby="create-heading">
        <h2 id="create-heading">Create a key</h2>
        <form className="inline" onSubmit={create}>
          <label>
            Label (optional)
            <input
              type="text"
              value={name}
              maxLength={64}
              onChange={(e) => setName(e.target.value)}
              placeholder="production backend"
            />
          </label>
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </form>
        {created && (
          <div className="secret" role="status">
            <p>
              <strong>Copy this secret now: it is shown only once.</strong> Send it as the <code>X-API-Key</code> header
              from your server.
            </p>
            <p>
              <code>{created.secret}</code>
            </p>
            <button type="button" className="secondary" onClick={() => navigator.clipboard?.writeText(created.secret)}>
              Copy
            </button>{' '}
            <button type="button" className="secondary" onClick={() => setCreated(null)}>
              I have saved it
            </button>
          </div>
        )}
      </section>

      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">Your keys</h2>
        {keys === null ? (
          <p>Loading…</p>
        ) : keys.length === 0 ? (
          <p>No keys yet.</p>
        ) : (
          <table>
            <caption className="hint">Newest first. Requests counted in the current minute and UTC day.</caption>
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Tier</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Minute / day</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {keys.map((key) => (
                <tr key={key.id}>
                  <td>
                    {key.name ?? <em>unnamed</em>}
                    <br />
                    <span className="mono">{key.id}</span>
                    <br />
                    <span className="mono hint">{key.prefix}…</span>
                  </td>
                  <td>{key.tier}</td>
                  <td>{when(key.created_at)}</td>
                  <td>{when(key.last_used_at)}</td>
                  <td>
                    {key.usage.minute} / {key.usage.day}
                  </td>
                  <td>
                    {key.revoked_at === null ? (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => revoke(key)}
                        aria-label={`Revoke ${key.name ?? key.id}`}
                      >
                        Revoke
                      </button>
                    ) : (
                      <>revoked {when(key.revoked_at)}</>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>

      {usage && (
        <section aria-labelledby="usage-heading">
          <h2 id="usage-heading">Usage</h2>
          <dl className="result">
            <dt>Tier</dt>
            <dd>{usage.tier}</dd>
            <dt>Limits (each key)</dt>
            <dd>
              {usage.limits.minute.toLocaleString()} per minute, {usage.limits.day.toLocaleString()} per UTC day
            </dd>
            <dt>This minute</dt>
            <dd>
              {usage.usage.minute.toLocaleString()} requests (window ends{' '}
              {new Date(usage.reset.minute).toLocaleTimeString()})
            </dd>
            <dt>Today</dt>
            <dd>
              {usage.usage.day.toLocaleString()} requests (window ends {new Date(usage.reset.day).toLocaleString()})
            </dd>
          </dl>
        </section>
      )}
    </>
  );
}
