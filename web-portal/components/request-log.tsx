'use client';
// The request log of the account or of one key (GET /v1/usage/requests): newest first, filtered by status class and
// request id, paged with the service's cursor. Read again when a filter changes or on Refresh.
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { REQUEST_LOG_STATUS_CLASSES, type RequestLogStatusClass } from '@sigil/contract/usage-history';
import { counted } from '../lib/plural';
import { errorText, isSessionLost, trpc } from '../lib/trpc';
import { useSession } from './session';
import { ErrorNotice } from './notice';

type Page = inferRouterOutputs<AppRouter>['usageHistory']['requests'];

interface Filters {
  status: RequestLogStatusClass | '';
  requestId: string;
}

export function RequestLog({ keyId, keyName }: { keyId: string; keyName: string }) {
  const { setSession } = useSession();
  const [draft, setDraft] = useState<Filters>({ status: '', requestId: '' });
  const [filters, setFilters] = useState<Filters>(draft);
  /** The cursors of the pages before the one shown (for Previous), and the cursor of the one shown. */
  const [cursors, setCursors] = useState<(string | undefined)[]>([undefined]);
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState('');

  const read = useCallback(
    async (before: string | undefined) => {
      setError('');
      try {
        setPage(
          await trpc.usageHistory.requests.query({
            ...(keyId ? { key_id: keyId } : {}),
            ...(filters.status ? { status: filters.status } : {}),
            ...(filters.requestId.trim() ? { request_id: filters.requestId.trim() } : {}),
            ...(before ? { before } : {}),
            limit: 25,
          }),
        );
      } catch (err) {
        if (isSessionLost(err)) setSession(null);
        else setError(errorText(err));
      }
    },
    [keyId, filters, setSession],
  );

  useEffect(() => {
    setPage(null);
    setCursors([undefined]);
    void read(undefined);
  }, [read]);

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setFilters(draft);
  };

  return (
    <section aria-labelledby="requests-heading">
      <h2 id="requests-heading">Requests</h2>
      <p className="hint">
        {keyName}: the latest requests, newest first. Each key keeps its newest 1,000 requests for 7 days; new ones
        appear within a few seconds.
      </p>
      <RequestFilters draft={draft} setDraft={setDraft} onApply={apply} onRefresh={() => void read(cursors.at(-1))} />
      <ErrorNotice>{error}</ErrorNotice>
      {page === null ? (
        !error && <p aria-live="polite">Loading requests…</p>
      ) : page.requests.length === 0 ? (
        <p>No requests match.</p>
      ) : (
        <>
          <p className="hint" aria-live="polite" data-testid="request-count">
            {counted(page.requests.length, 'request')} on this page{page.next_before ? '; older ones follow.' : '.'}
          </p>
          <RequestTable requests={page.requests} />
        </>
      )}
      <p className="actions">
        {cursors.length > 1 && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              const previous = cursors.slice(0, -1);
              setCursors(previous);
              void read(previous.at(-1));
            }}
          >
            Newer requests
          </button>
        )}
        {page?.next_before && (
          <button
            type="button"
            className="secondary"
            onClick={() => {
              setCursors([...cursors, page.next_before!]);
              void read(page.next_before!);
            }}
          >
            Older requests
          </button>
        )}
      </p>
    </section>
  );
}

function RequestFilters({
  draft,
  setDraft,
  onApply,
  onRefresh,
}: {
  draft: Filters;
  setDraft: (next: Filters) => void;
  onApply: (e: FormEvent) => void;
  onRefresh: () => void;
}) {
  return (
    <form className="inline" onSubmit={onApply} role="search" aria-label="Filter requests">
      <label>
        Status
        <select
          value={draft.status}
          onChange={(e) => setDraft({ ...draft, status: e.target.value as Filters['status'] })}
        >
          <option value="">Any</option>
          {REQUEST_LOG_STATUS_CLASSES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
      </label>
      <label>
        Request id
        <input
          type="text"
          value={draft.requestId}
          placeholder="req_…"
          spellCheck={false}
          onChange={(e) => setDraft({ ...draft, requestId: e.target.value })}
        />
      </label>
      <button type="submit">Apply</button>
      <button type="button" className="secondary" onClick={onRefresh}>
        Refresh
      </button>
    </form>
  );
}

function RequestTable({ requests }: { requests: Page['requests'] }) {
  return (
    <div className="scroll">
      <table className="stacked" data-testid="request-log">
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col">Request</th>
            <th scope="col">Status</th>
            <th scope="col">Latency</th>
            <th scope="col">Key</th>
            <th scope="col">Request id</th>
          </tr>
        </thead>
        <tbody>
          {requests.map((r) => (
            <tr key={`${r.at}:${r.request_id}`} data-request-id={r.request_id}>
              <td data-label="Time">{new Date(r.at).toLocaleString()}</td>
              <td data-label="Request" className="mono">
                {r.method} {r.route}
              </td>
              <td data-label="Status">{r.status}</td>
              <td data-label="Latency">{r.latency_ms.toFixed(1)} ms</td>
              <td data-label="Key" className="mono">
                {r.kind === 'x402' ? 'x402-paid' : r.key_id}
              </td>
              <td data-label="Request id" className="mono">
                {r.request_id}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
