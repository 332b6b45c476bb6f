import type { Metadata } from 'next';
import { Suspense } from 'react';
import { UsagePanel } from '../../components/usage-panel';

export const metadata: Metadata = { title: 'Usage' };

export default function UsagePage() {
  return (
    <>
      <h1>Usage</h1>
      <p className="hint">
        Requests of your account or of one key over the last hour, day, week or month, by outcome: served, client errors
        (4xx), rate-limited (429), server errors (5xx) and calls you paid for with x402, then each request on its own.
        Limits apply to each key.
      </p>
      <Suspense fallback={<p>Loading…</p>}>
        <UsagePanel />
      </Suspense>
    </>
  );
}
