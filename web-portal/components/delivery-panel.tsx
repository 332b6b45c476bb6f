'use client';
// One delivery in full: the body exactly as sent, the signed headers of its newest attempt (signatures only: a
// secret is never in them), every attempt (time, HTTP status or error class, duration) newest first and paged, and
// redeliver. Re-read whenever the log is (`version`), so a pending delivery's attempts appear as they happen.
import { Fragment, useEffect, useRef, useState } from 'react';
import { errorText } from '../lib/trpc';
import type { AttemptPage, DeliveryDetail, StreamApi } from './webhook-streams';
import { ErrorNotice } from './notice';

const ms = (t: number) => new Date(t).toLocaleString();

export function DeliveryPanel({
  api,
  webhookId,
  deliveryId,
  version,
  busy,
  close,
  redeliver,
}: {
  api: StreamApi;
  webhookId: string;
  deliveryId: string;
  version: number;
  busy: boolean;
  close: () => void;
  redeliver: () => void;
}) {
  const [detail, setDetail] = useState<DeliveryDetail | null>(null);
  const [attempts, setAttempts] = useState<AttemptPage | null>(null);
  const [error, setError] = useState('');
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    let live = true;
    Promise.all([api.delivery(webhookId, deliveryId), api.attempts(webhookId, deliveryId)])
      .then(([d, a]) => {
        if (!live) return;
        setDetail(d);
        setAttempts(a);
      })
      .catch((err) => live && setError(errorText(err)));
    return () => {
      live = false;
    };
  }, [api, webhookId, deliveryId, version]);

  useEffect(() => {
    headingRef.current?.focus();
  }, [deliveryId]);

  const more = async () => {
    if (!attempts?.next_cursor) return;
    try {
      const next = await api.attempts(webhookId, deliveryId, attempts.next_cursor);
      setAttempts({ attempts: [...attempts.attempts, ...next.attempts], next_cursor: next.next_cursor });
    } catch (err) {
      setError(errorText(err));
    }
  };

  return (
    <section aria-labelledby="delivery-heading" data-testid="delivery-detail">
      <h2 id="delivery-heading" tabIndex={-1} ref={headingRef}>
        Delivery <span className="mono">{deliveryId}</span>
      </h2>
      <ErrorNotice>{error}</ErrorNotice>
      {detail === null ? (
        !error && <p aria-live="polite">Loading the delivery…</p>
      ) : (
        <>
          <dl className="result">
            <dt>Event</dt>
            <dd className="mono">
              {detail.delivery.event_type} {detail.delivery.event_id}
              {detail.delivery.test ? ' (test)' : ''}
            </dd>
            <dt>Status</dt>
            <dd data-testid="delivery-status">
              {detail.delivery.status}, {detail.delivery.attempts}{' '}
              {detail.delivery.attempts === 1 ? 'attempt' : 'attempts'}
            </dd>
          </dl>
          <p className="actions">
            {detail.delivery.status !== 'pending' && (
              <button type="button" disabled={busy} onClick={redeliver}>
                Redeliver this delivery
              </button>
            )}
            <button type="button" className="secondary" onClick={close}>
              Close the delivery
            </button>
          </p>
          <h3>Body, as sent</h3>
          <pre data-testid="delivery-body">{detail.body}</pre>
          <h3>Signed headers of the latest attempt</h3>
          {detail.headers === null ? (
            <p>Not sent yet.</p>
          ) : (
            <dl className="result" data-testid="delivery-headers">
              {Object.entries(detail.headers).map(([name, value]) => (
                <Fragment key={name}>
                  <dt className="mono">{name}</dt>
                  <dd className="mono">{value}</dd>
                </Fragment>
              ))}
            </dl>
          )}
        </>
      )}
      <h3>Attempts</h3>
      {attempts === null ? null : attempts.attempts.length === 0 ? (
        <p>No attempt yet.</p>
      ) : (
        <div className="scroll">
          <table className="stacked" data-testid="delivery-attempts">
            <caption className="hint">Newest first.</caption>
            <thead>
              <tr>
                <th scope="col">Attempt</th>
                <th scope="col">Time</th>
                <th scope="col">Outcome</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              {attempts.attempts.map((a) => (
                <tr key={`${a.attempted_at}-${a.attempt}`} data-status={a.status ?? ''} data-error={a.error ?? ''}>
                  <td data-label="Attempt">{a.attempt}</td>
                  <td data-label="Time">{ms(a.attempted_at)}</td>
                  <td data-label="Outcome">
                    {a.status !== null ? `HTTP ${a.status}` : ''}
                    {a.error && a.error !== 'http_status' ? a.error : ''}
                  </td>
                  <td data-label="Duration">{a.duration_ms} ms</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {attempts?.next_cursor && (
        <p>
          <button type="button" className="secondary" onClick={() => void more()}>
            Older attempts
          </button>
        </p>
      )}
    </section>
  );
}
