import type { Metadata } from 'next';
import { WebhooksPanel } from '../../components/webhooks-panel';

export const metadata: Metadata = { title: 'Webhooks' };

export default function WebhooksPage() {
  return (
    <>
      <h1>Webhooks</h1>
      <p className="hint">
        Sigil posts a signed event to your HTTPS endpoint when a payment reaches your wallet or @name. Registering
        proves the wallet is yours: it signs a message that names the endpoint.
      </p>
      <WebhooksPanel />
    </>
  );
}
