'use client';
// One webhook of either stream (pay, identity events), through the session: its settings and state, editing
// (description, event types, URL — a pay URL proven with a fresh wallet signature), the actions (test event of a
// chosen type, disable / enable, rotate the secret, resume an auto-paused one, recover a time window, delete) and the
// delivery log, filtered and paged by the service, each delivery openable in full (body as sent, headers, every
// attempt) and redeliverable. The log is re-read every few seconds while a delivery is pending, so an attempt's
// outcome shows up without reloading.
import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import Link from 'next/link';
import { useRouter } from 'next/navigation';
import { errorCodeOf, errorText } from '../lib/trpc';
import { RequireSession } from './sign-in';
import { WithOwnerKey } from './owner-key';
import { DeliveryPanel } from './delivery-panel';
import { EditWebhook } from './webhook-edit';
import { SecretOnce, stateText } from './webhook-parts';
import {
  useStream,
  type Delivery,
  type Recovered,
  type StreamApi,
  type StreamName,
  type WebhookView,
} from './webhook-streams';
import { ErrorNotice, StatusNotice } from './notice';

const POLL_MS = 2_000;
const PAGE = 50;
export const seconds = (s: number | null) => (s === null ? '—' : new Date(s * 1000).toLocaleString());

export function WebhookDetail({ id, stream }: { id: string; stream: StreamName }) {
  return (
    <RequireSession purpose="manage this webhook">
      <WithOwnerKey>
        <Detail id={id} stream={stream} />
      </WithOwnerKey>
    </RequireSession>
  );
}

type Stream = StreamApi;
interface LogFilters {
  status: '' | 'pending' | 'delivered' | 'dead';
  type: string;
}

/** Runs an action, re-reads the webhook and its log (unless it is gone), then says what happened. */
type Act = <T>(
  what: string | ((result: T) => string),
  run: () => Promise<T>,
  options?: { gone?: boolean; after?: () => void },
) => Promise<void>;

function Detail({ id, stream }: { id: string; stream: StreamName }) {
  const api = useStream(stream);
  const [webhook, setWebhook] = useState<WebhookView | null | undefined>(undefined);
  const [deliveries, setDeliveries] = useState<Delivery[] | null>(null);
  const [older, setOlder] = useState<string | null>(null);
  const [filters, setFilters] = useState<LogFilters>({ status: '', type: '' });
  const [open, setOpen] = useState<string | null>(null);
  const [version, setVersion] = useState(0);
  const [secret, setSecret] = useState<string | null>(null);
  const [notice, setNotice] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const logRef = useRef<HTMLHeadingElement>(null);
  // While the webhook is being deleted no read starts, and the delete waits for the read in flight: a poll must
  // not ask for a webhook that is already gone.
  const deleting = useRef(false);
  const reading = useRef<Promise<void>>(Promise.resolve());

  const load = useCallback(() => {
    if (deleting.current) return Promise.resolve();
    reading.current = (async () => {
      try {
        const [w, log] = await Promise.all([api.get(id), api.deliveries(id, logQuery(filters))]);
        setWebhook(w);
        setDeliveries(log.deliveries);
        setOlder(log.next_cursor);
        setVersion((v) => v + 1);
      } catch (err) {
        if (errorCodeOf(err) === 'WEBHOOK_NOT_FOUND') setWebhook(null);
        else setError(errorText(err));
      }
    })();
    return reading.current;
  }, [api, id, filters]);

  const loadOlder = async () => {
    if (!older) return;
    try {
      const log = await api.deliveries(id, { ...logQuery(filters), cursor: older });
      setDeliveries((shown) => [...(shown ?? []), ...log.deliveries]);
      setOlder(log.next_cursor);
    } catch (err) {
      setError(errorText(err));
    }
  };

  useEffect(() => {
    void load();
  }, [load]);

  const pending = deliveries?.some((d) => d.status === 'pending') ?? false;
  useEffect(() => {
    if (!pending) return;
    const timer = setInterval(() => void load(), POLL_MS);
    return () => clearInterval(timer);
  }, [pending, load]);

  const act: Act = async (what, run, options = {}) => {
    setError('');
    setNotice('');
    setBusy(true);
    try {
      if (options.gone) {
        deleting.current = true;
        await reading.current;
      }
      const result = await run();
      if (!options.gone) await load();
      setNotice(typeof what === 'string' ? what : what(result));
      options.after?.();
    } catch (err) {
      deleting.current = false;
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  };

  if (webhook === undefined)
    return error ? <ErrorNotice>{error}</ErrorNotice> : <p aria-live="polite">Loading the webhook…</p>;
  if (webhook === null)
    return (
      <p role="alert">
        No such webhook on this account. <Link href={api.base}>Back to your webhooks</Link>
      </p>
    );

  const focusLog = () => logRef.current?.focus();
  return (
    <>
      <p>
        <Link href={api.base}>← All webhooks</Link>
      </p>
      <Settings webhook={webhook} />
      <EditWebhook api={api} webhook={webhook} busy={busy} act={act} />
      <Actions
        api={api}
        id={id}
        webhook={webhook}
        busy={busy}
        act={act}
        focusLog={focusLog}
        notice={notice}
        error={error}
        secret={secret}
        setSecret={setSecret}
      />
      <Recover
        busy={busy}
        recover={(since, until) =>
          void act(
            (r: Recovered) =>
              `Recovered: ${r.requeued} ${r.requeued === 1 ? 'delivery' : 'deliveries'} queued again, ${r.pending} pending in the window.`,
            () => api.recover(id, since, until),
            { after: focusLog },
          )
        }
      />
      <DeliveryLog
        eventTypes={api.eventTypes}
        deliveries={deliveries}
        filters={filters}
        setFilters={setFilters}
        older={older !== null}
        loadOlder={() => void loadOlder()}
        pending={pending}
        busy={busy}
        headingRef={logRef}
        refresh={() => void load()}
        open={(delivery) => setOpen(delivery)}
        redeliver={(delivery) => void act('Delivery queued again.', () => api.redeliver(id, delivery))}
      />
      {open && (
        <DeliveryPanel
          api={api}
          webhookId={id}
          deliveryId={open}
          version={version}
          busy={busy}
          close={() => {
            setOpen(null);
            focusLog();
          }}
          redeliver={() => void act('Delivery queued again.', () => api.redeliver(id, open))}
        />
      )}
    </>
  );
}

/** The service's query for the log's filters (first page). */
const logQuery = (filters: LogFilters) => ({
  limit: PAGE,
  ...(filters.status ? { status: filters.status } : {}),
  ...(filters.type ? { event_type: filters.type } : {}),
});

function Settings({ webhook }: { webhook: WebhookView }) {
  return (
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
        <dd data-testid="webhook-status" data-state={webhook.state}>
          {stateText(webhook)}
        </dd>
        {'from_sequence' in webhook && (
          <>
            <dt>Delivers from</dt>
            <dd>sequence {webhook.from_sequence} (earlier events are in the event log)</dd>
          </>
        )}
        <dt>Created</dt>
        <dd>{seconds(webhook.created_at)}</dd>
      </dl>
    </section>
  );
}

/** The actions bar (test event, rotate, resume, delete), what the last action did, and a rotated secret once. */
function Actions({
  api,
  id,
  webhook,
  busy,
  act,
  focusLog,
  notice,
  error,
  secret,
  setSecret,
}: {
  api: Stream;
  id: string;
  webhook: WebhookView;
  busy: boolean;
  act: Act;
  focusLog: () => void;
  notice: string;
  error: string;
  secret: string | null;
  setSecret: (secret: string | null) => void;
}) {
  const router = useRouter();
  const [testType, setTestType] = useState(api.eventTypes[0]!);
  const autoPaused = webhook.state === 'auto_paused';
  return (
    <section aria-labelledby="actions-heading">
      <h2 id="actions-heading">Actions</h2>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void act(`Test event (${testType}) queued.`, () => api.sendTest(id, testType), { after: focusLog });
        }}
      >
        <label>
          Test event of type
          <select value={testType} onChange={(e) => setTestType(e.target.value)}>
            {api.eventTypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <button type="submit" disabled={busy}>
          Send a test event
        </button>
      </form>
      <p className="actions">
        {webhook.state === 'disabled' ? (
          <button type="button" disabled={busy} onClick={() => void act('Webhook enabled.', () => api.enable(id))}>
            Enable
          </button>
        ) : (
          webhook.state !== 'scope_changed' && (
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => void act('Webhook disabled: no deliveries until you enable it.', () => api.disable(id))}
            >
              Disable
            </button>
          )
        )}
        <button
          type="button"
          className="secondary"
          disabled={busy}
          onClick={() => {
            if (!window.confirm('Rotate the signing secret? The next attempt is signed with the new one.')) return;
            void act('Secret rotated.', async () => setSecret(await api.rotateSecret(id)));
          }}
        >
          Rotate the secret
        </button>
        {autoPaused && (
          <button
            type="button"
            className="secondary"
            disabled={busy}
            onClick={() => void act('Webhook resumed.', () => api.resume(id))}
          >
            Resume ({stateText(webhook)})
          </button>
        )}
        <button
          type="button"
          className="secondary danger"
          disabled={busy}
          onClick={() => {
            if (!window.confirm('Delete this webhook and its delivery log?')) return;
            void act('Deleted.', () => api.remove(id), {
              gone: true,
              after: () => router.push(api.base),
            });
          }}
        >
          Delete
        </button>
      </p>
      <StatusNotice>{notice}</StatusNotice>
      <ErrorNotice>{error}</ErrorNotice>
      {secret && (
        <SecretOnce heading="New signing secret" secret={secret} testId="rotated-secret">
          <p className="hint">The previous secret keeps signing beside it for 24 hours.</p>
          <button type="button" className="secondary" onClick={() => setSecret(null)}>
            I have saved it
          </button>
        </SecretOnce>
      )}
    </section>
  );
}

/** The delivery log: the service's filters (status, event type), its newest-first pages, and their table. */
function DeliveryLog({
  eventTypes,
  deliveries,
  filters,
  setFilters,
  older,
  loadOlder,
  pending,
  busy,
  headingRef,
  refresh,
  open,
  redeliver,
}: {
  eventTypes: readonly string[];
  deliveries: Delivery[] | null;
  filters: LogFilters;
  setFilters: (filters: LogFilters) => void;
  older: boolean;
  loadOlder: () => void;
  pending: boolean;
  busy: boolean;
  headingRef: RefObject<HTMLHeadingElement | null>;
  refresh: () => void;
  open: (delivery: string) => void;
  redeliver: (delivery: string) => void;
}) {
  const shown = deliveries ?? [];
  const filtered = filters.status !== '' || filters.type !== '';
  return (
    <section aria-labelledby="log-heading">
      <h2 id="log-heading" tabIndex={-1} ref={headingRef}>
        Delivery log
      </h2>
      <form className="inline" onSubmit={(e) => e.preventDefault()}>
        <label>
          Status
          <select
            value={filters.status}
            onChange={(e) => setFilters({ ...filters, status: e.target.value as LogFilters['status'] })}
          >
            <option value="">Any</option>
            <option value="pending">Pending</option>
            <option value="delivered">Delivered</option>
            <option value="dead">Dead</option>
          </select>
        </label>
        <label>
          Event type
          <select value={filters.type} onChange={(e) => setFilters({ ...filters, type: e.target.value })}>
            <option value="">Any</option>
            {eventTypes.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="secondary" onClick={refresh}>
          Refresh
        </button>
      </form>
      {deliveries === null ? (
        <p aria-live="polite">Loading deliveries…</p>
      ) : shown.length === 0 ? (
        <p>{filtered ? 'No deliveries match the filters.' : 'No deliveries yet: send a test event.'}</p>
      ) : (
        <DeliveryTable shown={shown} pending={pending} busy={busy} open={open} redeliver={redeliver} />
      )}
      {older && (
        <p>
          <button type="button" className="secondary" onClick={loadOlder}>
            Older deliveries
          </button>
        </p>
      )}
    </section>
  );
}

function DeliveryTable({
  shown,
  pending,
  busy,
  open,
  redeliver,
}: {
  shown: Delivery[];
  pending: boolean;
  busy: boolean;
  open: (delivery: string) => void;
  redeliver: (delivery: string) => void;
}) {
  return (
    <div className="scroll">
      <table data-testid="delivery-log" className="stacked">
        <caption className="hint">Newest first{pending ? '; refreshing while a delivery is pending' : ''}.</caption>
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
              <td data-label="Event">
                <span className="mono">{d.event_type}</span>
                {d.test ? ' (test)' : ''}
                <br />
                <span className="hint">{seconds(d.created_at)}</span>
              </td>
              <td data-label="Status">{d.status}</td>
              <td data-label="Attempts">{d.attempts}</td>
              <td data-label="Last answer">
                {d.last_status !== null ? `HTTP ${d.last_status}` : ''}
                {d.last_error && d.last_error !== 'http_status' ? d.last_error : ''}
                {d.last_status === null && !d.last_error ? '—' : ''}
              </td>
              <td data-label="Response time">{d.response_ms === null ? '—' : `${d.response_ms} ms`}</td>
              <td data-label="Next attempt">{seconds(d.next_attempt_at)}</td>
              <td data-label="Actions" className="actions">
                <button
                  type="button"
                  className="secondary"
                  aria-label={`Details of ${d.event_type} from ${seconds(d.created_at)}`}
                  onClick={() => open(d.id)}
                >
                  Details
                </button>
                {d.status !== 'pending' && (
                  <button
                    type="button"
                    className="secondary"
                    disabled={busy}
                    aria-label={`Redeliver ${d.event_type} from ${seconds(d.created_at)}`}
                    onClick={() => redeliver(d.id)}
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
  );
}

/** The datetime-local value (the browser's local time) of a moment. */
const localInput = (ms: number) => {
  const d = new Date(ms - new Date(ms).getTimezoneOffset() * 60_000);
  return d.toISOString().slice(0, 16);
};

/**
 * Recover: every dead delivery of a time window, and every pending one that already failed, goes back in the queue
 * (for an endpoint that was down and is fixed). The window defaults to the last 24 hours.
 */
function Recover({ busy, recover }: { busy: boolean; recover: (since: string, until?: string) => void }) {
  const [since, setSince] = useState(() => localInput(Date.now() - 24 * 3600_000));
  const [until, setUntil] = useState('');
  return (
    <section aria-labelledby="recover-heading">
      <h2 id="recover-heading">Recover failed deliveries</h2>
      <p className="hint">
        Puts every dead delivery created in the window, and every pending one that already failed, back in the queue
        with a fresh set of attempts, due now. Delivered ones are left alone (redeliver those one by one).
      </p>
      <form
        className="inline"
        onSubmit={(e) => {
          e.preventDefault();
          const iso = (local: string) => new Date(local).toISOString();
          recover(iso(since), until ? iso(until) : undefined);
        }}
      >
        <label>
          From
          <input type="datetime-local" value={since} onChange={(e) => setSince(e.target.value)} required />
        </label>
        <label>
          Until (empty: now)
          <input type="datetime-local" value={until} onChange={(e) => setUntil(e.target.value)} />
        </label>
        <button type="submit" className="secondary" disabled={busy}>
          Recover
        </button>
      </form>
    </section>
  );
}
