'use client';
// One pay webhook: its settings, the actions (test event, rotate the secret, resume an auto-paused one, delete) and
// the delivery log with filters (status, event type) and redeliver. The log is re-read every few seconds while a
// delivery is pending, so an attempt's outcome shows up without reloading. The service lists the latest 200
// deliveries; the filters apply to those.
import { useCallback, useEffect, useRef, useState } from 'react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { PAY_EVENT_TYPES } from '@sigil/contract/webhooks';
import { errorText, trpc } from '../lib/trpc';
import { CopyButton } from './copy-button';
import { RequireSession } from './sign-in';
import { WithKey } from './webhooks-panel';

type Outputs = inferRouterOutputs<AppRouter>;
type Webhook = Outputs['payWebhooks']['get'];
type Delivery = Outputs['payWebhooks']['deliveries']['deliveries'][number];

const POLL_MS = 2_000;
const LOG_LIMIT = 200;
const seconds = (s: number | null) => (s === null ? '—' : new Date(s * 1000).toLocaleString());

export function WebhookDetail({ id }: { id: string }) {
  return (
    <RequireSession purpose="manage this webhook">
      <WithKey>{() => <Detail id={id} />}</WithKey>
    </RequireSession>
  );
}

function Detail({ id }: { id: string }) {
  const router = useRouter();
  const [webhook, setWebhook] = useState<Webhook | null | undefined>(undefined);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [statusFilter, setStatusFilter] = useState('');
  const [typeFilter, setTypeFilter] = useState('');
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const secretRef = useRef<HTMLDivElement>(null);
  const logRef = useRef<HTMLHeadingElement>(null);

  const load = useCallback(async () => {
    try {
      const [w, log] = await Promise.all([
        trpc.payWebhooks.get.query({ id }),
        trpc.payWebhooks.deliveries.query({ id, limit: LOG_LIMIT }),
      ]);
      setWebhook(w);
      setDeliveries(log.deliveries);
    } catch (err) {
      if ((err as { data?: { errorCode?: string } }).data?.errorCode === 'WEBHOOK_NOT_FOUND') setWebhook(null);
      else setError(errorText(err));
    }
  }, [id]);

  useEffect(() => {
    void load();
  }, [load]);

  const pending = deliveries?.some((d) => d.status === 'pending') ?? false;
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [pending, load]);

  useEffect(() => {
    if (secret) secretRef.current?.focus();
  }, [secret]);

  /** Runs an action, re-reads the webhook and its log (unless it is gone), then says what happened. */
  async function act(what: string, run: () => Promise<unknown>, options: { gone?: boolean; after?: () => void } = {}) {
    setError('');
    setNotice('');
    setBusy(true);
    try {
      await run();
      if (!options.gone) await load();
      setNotice(what);
      options.after?.();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  if (webhook === undefined)
    return error ? (
      <p className="error" role="alert">
        {error}
      </p>
    ) : (
      <p aria-live="polite">Loading the webhook…</p>
    );
  if (webhook === null)
    return (
      <p role="alert">
        No such webhook on this account. <Link href="/webhooks">Back to your webhooks</Link>
      </p>
    );

  const autoPaused = webhook.status === 'paused' && (webhook.paused_reason ?? '').startsWith('auto-paused: ');
  const shown = (deliveries ?? []).filter(
    (d) => (!statusFilter || d.status === statusFilter) && (!typeFilter || d.event_type === typeFilter),
  );

  return (
    <>
      <p>
        <Link href="/webhooks">← All webhooks</Link>
      </p>
      <section aria-labelledby="webhook-heading">
        <h2 id="webhook-heading">{webhook.description ?? webhook.url}</h2>
        <dl className="result">
          <dt>Id</dt>
          <dd className="mono">{webhook.id}</dd>
          <dt>Endpoint</dt>
          <dd className="mono">{webhook.url}</dd>
          <dt>Scope</dt>
          <dd className="mono">{webhook.scope.value}</dd>
          <dt>Events</dt>
          <dd>{webhook.event_types.join(', ')}</dd>
          <dt>Status</dt>
          <dd data-testid="webhook-status">
            {webhook.status}
            {webhook.paused_reason ? ` — ${webhook.paused_reason}` : ''}
          </dd>
          <dt>Created</dt>
          <dd>{seconds(webhook.created_at)}</dd>
        </dl>
      </section>

      <section aria-labelledby="actions-heading">
        <h2 id="actions-heading">Actions</h2>
        <p className="actions">
          <button
            type="button"
            disabled={busy}
            onClick={() =>
              void act('Test event queued.', () => trpc.payWebhooks.sendTest.mutate({ id }), {
                after: () => logRef.current?.focus(),
              })
            }
          >
            Send a test event
          </button>
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => {
              if (!window.confirm('Rotate the signing secret? The next attempt is signed with the new one.')) return;
              void act('Secret rotated.', async () =>
                setSecret((await trpc.payWebhooks.rotateSecret.mutate({ id })).secret),
              );
            }}
          >
            Rotate the secret
          </button>
          {autoPaused && (
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => void act('Webhook resumed.', () => trpc.payWebhooks.resume.mutate({ id }))}
            >
              Resume (paused: {webhook.paused_reason!.slice('auto-paused: '.length)})
            </button>
          )}
          <button
            type="button"
            className="secondary danger"
            disabled={busy}
            onClick={() => {
              if (!window.confirm('Delete this webhook and its delivery log?')) return;
              void act('Deleted.', () => trpc.payWebhooks.remove.mutate({ id }), {
                gone: true,
                after: () => router.push('/webhooks'),
              });
            }}
          >
            Delete
          </button>
        </p>
        <p role="status" className="ok">
          {notice}
        </p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {secret && (
          <div className="secret" tabIndex={-1} ref={secretRef} aria-labelledby="rotated-heading">
            <h3 id="rotated-heading">New signing secret</h3>
            <p>
              <strong>Copy it now: it is shown only once.</strong>
            </p>
            <p>
              <code data-testid="rotated-secret">{secret}</code> <CopyButton text={secret} label="secret" />
            </p>
            <button type="button" className="secondary" onClick={() => setSecret(null)}>
              I have saved it
            </button>
          </div>
        )}
      </section>

      <section aria-labelledby="log-heading">
        <h2 id="log-heading" tabIndex={-1} ref={logRef}>
          Delivery log
        </h2>
        <form className="inline" onSubmit={(e) => e.preventDefault()}>
          <label>
            Status
            <select value={statusFilter} onChange={(e) => setStatusFilter(e.target.value)}>
              <option value="">Any</option>
              <option value="pending">Pending</option>
              <option value="delivered">Delivered</option>
              <option value="dead">Dead</option>
            </select>
          </label>
          <label>
            Event type
            <select value={typeFilter} onChange={(e) => setTypeFilter(e.target.value)}>
              <option value="">Any</option>
              {PAY_EVENT_TYPES.map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </label>
          <button type="button" className="secondary" onClick={() => void load()}>
            Refresh
          </button>
        </form>
        {deliveries === null ? (
          <p aria-live="polite">Loading deliveries…</p>
        ) : shown.length === 0 ? (
          <p>
            {deliveries.length === 0 ? 'No deliveries yet: send a test event.' : 'No deliveries match the filters.'}
          </p>
        ) : (
          <div className="scroll">
            <table data-testid="delivery-log">
              <caption className="hint">
                Newest first{pending ? '; refreshing while a delivery is pending' : ''}.
              </caption>
              <thead>
                <tr>
                  <th scope="col">Event</th>
                  <th scope="col">Status</th>
                  <th scope="col">Attempts</th>
                  <th scope="col">Last answer</th>
                  <th scope="col">Response time</th>
                  <th scope="col">Next attempt</th>
                  <th scope="col">Actions</th>
                </tr>
              </thead>
              <tbody>
                {shown.map((d) => (
                  <tr key={d.id} data-delivery-id={d.id} data-status={d.status} data-attempts={d.attempts}>
                    <td>
                      <span className="mono">{d.event_type}</span>
                      {d.test ? ' (test)' : ''}
                      <br />
                      <span className="hint">{seconds(d.created_at)}</span>
                    </td>
                    <td>{d.status}</td>
                    <td>{d.attempts}</td>
                    <td>
                      {d.last_status !== null ? `HTTP ${d.last_status}` : ''}
                      {d.last_error && d.last_error !== 'http_status' ? d.last_error : ''}
                      {d.last_status === null && !d.last_error ? '—' : ''}
                    </td>
                    <td>{d.response_ms === null ? '—' : `${d.response_ms} ms`}</td>
                    <td>{seconds(d.next_attempt_at)}</td>
                    <td>
                      {d.status !== 'pending' && (
                        <button
                          type="button"
                          className="secondary"
                          disabled={busy}
                          aria-label={`Redeliver ${d.event_type} from ${seconds(d.created_at)}`}
                          onClick={() =>
                            void act('Delivery queued again.', () =>
                              trpc.payWebhooks.redeliver.mutate({ id, deliveryId: d.id }),
                            )
                          }
                        >
                          Redeliver
                        </button>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
      </section>
    </>
  );
}
