import type { Metadata } from 'next';
import { KeysPanel } from '../../components/keys-panel';

export const metadata: Metadata = { title: 'API keys' };

export default function KeysPage() {
  return (
    <>
      <h1>API keys</h1>
      <p className="hint">
        Sign in with your wallet to create, list, rename and revoke the API keys of your account (your wallet is the
        account) and to see their usage. A key&rsquo;s secret is shown once, when you create it; keep it on your server,
        never in a browser or app.
      </p>
      <KeysPanel />
    </>
  );
}
