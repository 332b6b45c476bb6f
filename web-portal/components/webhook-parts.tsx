'use client';
// Pieces both webhook streams' pages share: the list of an account's webhooks and the secret shown once (which the
// OpenID Connect client's secret uses too).
import { useCallback, useEffect, useRef, useState, type ReactNode } from 'react';
import Link from 'next/link';
import { PAY_EVENT_TYPES } from '@sigil/contract/webhooks';
import { errorText } from '../lib/trpc';
import { CopyButton } from './copy-button';
import { STREAMS, useStream, type StreamName, type WebhookView } from './webhook-streams';
import { ErrorNotice } from './notice';

/** Reads a stream's webhooks; `refresh` re-reads them after a change. */
export function useWebhookList(stream: StreamName) {
  const api = useStream(stream);
  const [webhooks, setWebhooks] = useState<WebhookView[] | null>(null);
  const [error, setError] = useState('');
  const refresh = useCallback(async () => {
    try {
      setWebhooks(await api.list());
    } catch (err) {
      setError(errorText(err));
    }
  }, [api]);
  useEffect(() => {
    void refresh();
  }, [refresh]);
  return { webhooks, error, refresh };
}

/** Whether a webhook gets deliveries and, if not, why (its state as the service says it). */
export function stateText(webhook: WebhookView): string {
  const reason = webhook.paused_reason ?? '';
  const why = reason.slice(reason.indexOf(': ') + 2);
  switch (webhook.state) {
    case 'active':
      return 'active';
    case 'disabled':
      return 'disabled by you';
    case 'auto_paused':
      return `auto-paused: ${why}`;
    case 'scope_changed':
      return `paused, scope changed: ${why}`;
  }
}

/** The account's webhooks of one stream, with loading and empty states. */
export function WebhookTable({
  stream,
  webhooks,
  error,
  empty,
}: {
  stream: StreamName;
  webhooks: WebhookView[] | null;
  error: string;
  empty: string;
}) {
  const { base, describeTypes } = STREAMS[stream];
  return (
    <section aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Your webhooks</h2>
      <ErrorNotice>{error}</ErrorNotice>
      {webhooks === null ? (
        !error && <p aria-live="polite">Loading webhooks…</p>
      ) : webhooks.length === 0 ? (
        <p>{empty}</p>
      ) : (
        <div className="scroll">
          <table data-testid="webhook-list" className="stacked">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Scope</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
              </tr>
            </thead>
            <tbody>
              {webhooks.map((w) => (
                <tr key={w.id}>
                  <td data-label="Endpoint">
                    <Link href={`${base}/${w.id}`}>{w.description ?? w.url}</Link>
                    <br />
                    <span className="mono hint">{w.url}</span>
                  </td>
                  <td data-label="Scope" className="mono">
                    {w.scope.value}
                  </td>
                  <td data-label="Events">{describeTypes(w.event_types)}</td>
                  <td data-label="Status">{stateText(w)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

/**
 * A secret shown once (a webhook's signing secret by default, or what `note` says it is); it takes the focus when it
 * appears so a screen reader announces it.
 */
export function SecretOnce({
  heading,
  secret,
  testId,
  note = (
    <>
      <strong>Copy the signing secret now: it is shown only once.</strong> Your receiver verifies every delivery with it
      (<code>verifyWebhook</code> in the SDK).
    </>
  ),
  children,
}: {
  heading: string;
  secret: string;
  testId: string;
  note?: ReactNode;
  children?: ReactNode;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    ref.current?.focus();
  }, [secret]);
  return (
    <div className="secret" tabIndex={-1} ref={ref} aria-labelledby={`${testId}-heading`}>
      <h3 id={`${testId}-heading`}>{heading}</h3>
      <p>{note}</p>
      <p>
        <code data-testid={testId}>{secret}</code> <CopyButton text={secret} label="secret" />
      </p>
      {children}
    </div>
  );
}

/** The endpoint field of both streams' create forms (HTTPS only; the service vets the destination). */
export function EndpointUrlField({
  value,
  onChange,
  label = 'Endpoint URL (HTTPS)',
}: {
  value: string;
  onChange: (url: string) => void;
  label?: string;
}) {
  return (
    <label>
      {label}
      <input
        type="url"
        value={value}
        onChange={(e) => onChange(e.target.value)}
        placeholder="https://example.com/hooks"
        required
      />
    </label>
  );
}

/** The pay event types as checkboxes (registration and editing): none checked means every type. */
export function PayEventChoices({ types, setTypes }: { types: string[]; setTypes: (types: string[]) => void }) {
  return (
    <fieldset>
      <legend>Events (none checked: all)</legend>
      {PAY_EVENT_TYPES.map((t) => (
        <label key={t} className="choice">
          <input
            type="checkbox"
            checked={types.includes(t)}
            onChange={(e) => setTypes(e.target.checked ? [...types, t] : types.filter((x) => x !== t))}
          />
          <span className="mono">{t}</span>
        </label>
      ))}
    </fieldset>
  );
}
