'use client';
// A key's active Connect sessions (every sign-in made through the key: the Connect routes or the OpenID Connect
// sign-in page), newest first, optionally one wallet's; the key's owner revokes one, or all of a wallet's. The
// service revokes at once on every replica and sends the back-channel logouts (docs/oidc.md "Session lifecycle").
import { useCallback, useEffect, useRef, useState } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { counted } from '../lib/plural';
import { trpc } from '../lib/trpc';
import { useKey } from './key-pages';
import { useShowError } from './session';
import { ErrorNotice, StatusNotice } from './notice';

type Session = inferRouterOutputs<AppRouter>['oidc']['keySessions']['sessions'][number];

const when = (ms: number) => new Date(ms).toLocaleString();

/** The OpenID Connect proof paths (the id token's `amr`), as a person reads them. */
const AMR_LABELS: Readonly<Record<string, string>> = {
  'sigil-signature': 'message signature',
  'sigil-memo-tx': 'memo transaction',
  siws: 'Sign-In With Solana',
};

export function KeySessionsPanel() {
  const key = useKey();
  const [sessions, setSessions] = useState<Session[] | null>(null);
  const [walletInput, setWalletInput] = useState('');
  const [wallet, setWallet] = useState('');
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const fail = useShowError(setError);

  const load = useCallback(async () => {
    try {
      const read = await trpc.oidc.keySessions.query({ id: key.id, ...(wallet ? { wallet } : {}) });
      setSessions(read.sessions);
    } catch (err) {
      fail(err);
    }
  }, [key.id, wallet, fail]);

  useEffect(() => {
    void load();
  }, [load]);

  async function act(run: () => Promise<string>) {
    setError('');
    setNotice('');
    setBusy(true);
    try {
      const what = await run();
      await load();
      setNotice(what);
      // The row (and its buttons) may be gone: the list's heading takes the focus.
      headingRef.current?.focus();
    } catch (err) {
      fail(err);
    } finally {
      setBusy(false);
    }
  }

  const revokeOne = (s: Session) => {
    if (!window.confirm(`Revoke this session of ${s.address}? The app it signed in to is told at once.`)) return;
    void act(async () => {
      const { revoked } = await trpc.oidc.revokeKeySession.mutate({ id: key.id, jti: s.jti });
      return revoked ? 'Session revoked.' : 'That session had already ended.';
    });
  };
  const revokeWallet = (address: string) => {
    if (!window.confirm(`Revoke every session of ${address} through this key?`)) return;
    void act(async () => {
      const { revoked } = await trpc.oidc.revokeKeyWalletSessions.mutate({ id: key.id, wallet: address });
      return `Revoked ${counted(revoked, 'session')} of ${address}.`;
    });
  };

  return (
    <section aria-labelledby="sessions-heading">
      <h2 id="sessions-heading" tabIndex={-1} ref={headingRef}>
        Active sessions
      </h2>
      <p className="hint">
        Every sign-in through this key, until it expires or is revoked. Revoking is effective at once; an OpenID Connect
        client that registered a back-channel logout URI is told.
      </p>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          setError('');
          setWallet(walletInput.trim());
        }}
      >
        <label>
          Only this wallet (optional)
          <input
            type="text"
            value={walletInput}
            maxLength={64}
            spellCheck={false}
            onChange={(e) => setWalletInput(e.target.value)}
            placeholder="wallet address"
          />
        </label>
        <button type="submit" className="secondary">
          Show
        </button>
        <button type="button" className="secondary" onClick={() => void load()}>
          Refresh
        </button>
      </form>
      <StatusNotice>{notice}</StatusNotice>
      <ErrorNotice>{error}</ErrorNotice>
      {sessions === null ? (
        !error && <p aria-live="polite">Loading sessions…</p>
      ) : sessions.length === 0 ? (
        <p>
          {wallet
            ? 'No active session of this wallet through this key.'
            : 'No active sessions: someone who signs in through this key (Connect or OpenID Connect) shows here.'}
        </p>
      ) : (
        <SessionTable sessions={sessions} busy={busy} revokeOne={revokeOne} revokeWallet={revokeWallet} />
      )}
    </section>
  );
}

function SessionTable({
  sessions,
  busy,
  revokeOne,
  revokeWallet,
}: {
  sessions: Session[];
  busy: boolean;
  revokeOne: (session: Session) => void;
  revokeWallet: (address: string) => void;
}) {
  return (
    <div className="scroll">
      <table data-testid="session-list" className="stacked">
        <caption className="hint">Newest first; {counted(sessions.length, 'session')}.</caption>
        <thead>
          <tr>
            <th scope="col">Wallet</th>
            <th scope="col">Proof</th>
            <th scope="col">Created</th>
            <th scope="col">Expires</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {sessions.map((s) => (
            <tr key={s.jti} data-jti={s.jti} data-wallet={s.address}>
              <td data-label="Wallet">
                <span className="mono">{s.address}</span>
                {s.handle && (
                  <>
                    <br />@{s.handle}
                  </>
                )}
              </td>
              <td data-label="Proof">
                {s.amr ? (
                  <>
                    OpenID Connect, {AMR_LABELS[s.amr] ?? s.amr} (<span className="mono">{s.amr}</span>)
                  </>
                ) : (
                  'Connect API'
                )}
                <br />
                <span className="hint">proves: {s.source}</span>
              </td>
              <td data-label="Created">{when(s.created_at)}</td>
              <td data-label="Expires">{when(s.expires_at)}</td>
              <td data-label="Actions" className="actions">
                <button
                  type="button"
                  className="secondary danger"
                  disabled={busy}
                  aria-label={`Revoke the session of ${s.address} from ${when(s.created_at)}`}
                  onClick={() => revokeOne(s)}
                >
                  Revoke
                </button>
                <button
                  type="button"
                  className="secondary danger"
                  disabled={busy}
                  aria-label={`Revoke all for this wallet: ${s.address}`}
                  onClick={() => revokeWallet(s.address)}
                >
                  Revoke all for this wallet
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
