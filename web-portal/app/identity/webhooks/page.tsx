import type { Metadata } from 'next';
import { IdentityNav } from '../../../components/identity-nav';
import { IdentityWebhooksPanel } from '../../../components/identity-webhooks-panel';

export const metadata: Metadata = { title: 'Identity webhooks' };

export default function IdentityWebhooksPage() {
  return (
    <>
      <h1>Identity webhooks</h1>
      <IdentityNav />
      <p className="hint">
        Sigil posts a signed event to your HTTPS endpoint when something changes in the registry for an @name, a wallet,
        or (partner keys) the whole registry: registrations, transfers, records, primaries, attestations, the market. No
        wallet signature is needed: these are public chain facts.
      </p>
      <IdentityWebhooksPanel />
    </>
  );
}
