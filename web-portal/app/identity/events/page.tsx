import type { Metadata } from 'next';
import { IdentityEventLog } from '../../../components/identity-event-log';
import { IdentityNav } from '../../../components/identity-nav';

export const metadata: Metadata = { title: 'Identity-event log' };

export default function IdentityEventsPage() {
  return (
    <>
      <h1>Identity-event log</h1>
      <IdentityNav />
      <p className="hint">
        Every registry change in order, with a gapless sequence: each event is byte for byte the body its webhook
        deliveries carried. Kept 90 days by default.
      </p>
      <IdentityEventLog />
    </>
  );
}
