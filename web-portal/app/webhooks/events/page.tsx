import type { Metadata } from 'next';
import Link from 'next/link';
import { eventCatalog } from '@sigil/contract/event-catalog';

export const metadata: Metadata = { title: 'Event catalog' };

const STREAM_TITLES = { pay: 'Pay events', identity: 'Identity events' } as const;

/** Every event type of both streams with its example payload (the service's GET /v1/webhooks/event-types). */
export default function EventCatalogPage() {
  const catalog = eventCatalog();
  return (
    <>
      <h1>Event catalog</h1>
      <p className="hint">
        Every event a webhook can receive, with an example body exactly as your endpoint gets it. A test event of a type
        (on a webhook&rsquo;s page) is its example with your own wallet or name, marked{' '}
        <code>&quot;test&quot;: true</code>. Pay events go to <Link href="/webhooks">pay webhooks</Link>, identity
        events to <Link href="/identity/webhooks">identity webhooks</Link>.
      </p>
      {(['pay', 'identity'] as const).map((stream) => (
        <section key={stream} aria-labelledby={`${stream}-events`}>
          <h2 id={`${stream}-events`}>{STREAM_TITLES[stream]}</h2>
          {catalog
            .filter((e) => e.stream === stream)
            .map((e) => (
              <details key={e.type} data-event-type={e.type}>
                <summary className="mono">{e.type}</summary>
                <pre>{JSON.stringify(e.payload, null, 2)}</pre>
              </details>
            ))}
        </section>
      ))}
    </>
  );
}
