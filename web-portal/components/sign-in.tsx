'use client';
// Sign-in: pick a wallet (Wallet Standard wallets, or the legacy injected one) and a proof path; the wallet signs
// and the portal's backend keeps the session in an httpOnly cookie.
import { useEffect, useRef, useState } from 'react';
import { errorText } from '../lib/trpc';
import { PROOF_PATHS, signInWith, type ProofPath } from '../lib/signin';
import { availableWallets, watchWallets, type PortalWallet } from '../lib/wallet';
import { useSession, type SessionRead } from './session';
import { ErrorNotice } from './notice';

export function SignIn({ purpose }: { purpose: string }) {
  const { setSession } = useSession();
  const [wallets, setWallets] = useState<PortalWallet[] | undefined>(undefined);
  const [walletId, setWalletId] = useState<string>('');
  const [path, setPath] = useState<ProofPath>('message');
  const [status, setStatus] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const errorRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    const refresh = () => setWallets(availableWallets());
    refresh();
    return watchWallets(refresh);
  }, []);

  const wallet = wallets?.find((w) => w.id === walletId) ?? wallets?.[0];
  const paths = (Object.keys(PROOF_PATHS) as ProofPath[]).filter((p) => wallet && PROOF_PATHS[p].supported(wallet));
  const chosenPath = paths.includes(path) ? path : paths[0];

  useEffect(() => {
    if (error) errorRef.current?.focus();
  }, [error]);

  async function signIn() {
    if (!wallet || !chosenPath) return;
    setError('');
    setBusy(true);
    try {
      const session = await signInWith<SessionRead>(chosenPath, wallet, { onStep: setStatus });
      setStatus('');
      setSession(session);
      // The form is gone: the focus goes to the start of the signed-in content, not to the top of the document.
      document.getElementById('main')?.focus();
    } catch (err) {
      setStatus('');
      setError(`Sign-in failed: ${errorText(err)}`);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section aria-labelledby="signin-heading">
      <h2 id="signin-heading">Sign in</h2>
      <p>Sign in with your wallet to {purpose}. No transaction is sent and nothing is paid.</p>
      {wallets === undefined ? (
        <p aria-live="polite">Looking for wallets…</p>
      ) : wallets.length === 0 ? (
        <p role="status">
          No Solana wallet found in this browser. Install a wallet extension (for example Phantom, Backpack or Solflare)
          and reload.
        </p>
      ) : (
        <form
          className="stack"
          onSubmit={(e) => {
            e.preventDefault();
            void signIn();
          }}
        >
          <fieldset>
            <legend>Wallet</legend>
            {wallets.map((w) => (
              <label key={w.id} className="choice">
                <input
                  type="radio"
                  name="wallet"
                  value={w.id}
                  checked={wallet?.id === w.id}
                  onChange={() => setWalletId(w.id)}
                />
                {w.icon && <img src={w.icon} alt="" width={20} height={20} />}
                {w.name}
              </label>
            ))}
          </fieldset>
          <fieldset>
            <legend>How your wallet proves it is yours</legend>
            {paths.map((p) => (
              <label key={p} className="choice">
                <input type="radio" name="proof" value={p} checked={chosenPath === p} onChange={() => setPath(p)} />
                <span>
                  {PROOF_PATHS[p].label}
                  <span className="hint block">{PROOF_PATHS[p].hint}</span>
                </span>
              </label>
            ))}
          </fieldset>
          <p>
            <button type="submit" disabled={busy || !chosenPath}>
              {busy ? 'Signing in…' : `Sign in with ${wallet?.name ?? 'your wallet'}`}
            </button>
          </p>
        </form>
      )}
      <p aria-live="polite" className="hint mono">
        {status}
      </p>
      <ErrorNotice focusRef={errorRef}>{error}</ErrorNotice>
    </section>
  );
}

/** Children when signed in; the sign-in form otherwise; a loading line while the session is read. */
export function RequireSession({ purpose, children }: { purpose: string; children: React.ReactNode }) {
  const { session } = useSession();
  if (session === undefined) return <p aria-live="polite">Checking your session…</p>;
  if (session === null) return <SignIn purpose={purpose} />;
  return <>{children}</>;
}
