'use client';
// The identity-event log (GET /v1/identity/events through the portal): filters by types (the event_types grammar:
// types, families, `*`), handle and wallet, read page by page with the log's cursor. The previous pages' cursors
// are kept so "Previous page" needs no backwards query (the service pages forwards only).
import { useRef, useState, type FormEvent } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { errorText, trpc } from '../lib/trpc';
import { RequireSession } from './sign-in';
import { ManagingKey, WithKey } from './webhook-key';
import { ErrorNotice } from './notice';

type Page = inferRouterOutputs<AppRouter>['identityEvents']['events'];
type Filters = { types: string; handle: string; wallet: string; after: string; limit: string };

/** Page sizes offered (the service takes 1..200). */
const PAGE_SIZES = ['10', '50', '200'] as const;

export function IdentityEventLog() {
  return (
    <RequireSession purpose="read the identity-event log">
      <WithKey>
        {(key) => (
          <>
            <ManagingKey webhookKey={key} />
            <Log />
          </>
        )}
      </WithKey>
    </RequireSession>
  );
}

function Log() {
  const [filters, setFilters] = useState<Filters>({ types: '', handle: '', wallet: '', after: '', limit: '50' });
  const [page, setPage] = useState<Page | null>(null);
  /** Cursors of the pages read so far: the last one is the current page's `after`. */
  const [cursors, setCursors] = useState<(number | undefined)[]>([]);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const resultsRef = useRef<HTMLHeadingElement>(null);

  /** The filters of the pages on show: paging keeps them even if the form is edited meanwhile. */
  const [applied, setApplied] = useState<Filters>(filters);

  async function read(query: Filters, after: number | undefined, history: (number | undefined)[]) {
    setError('');
    setBusy(true);
    try {
      const f = { types: query.types.trim(), handle: query.handle.trim(), wallet: query.wallet.trim() };
      setPage(
        await trpc.identityEvents.events.query({
          limit: Number(query.limit),
          ...(after === undefined ? {} : { after }),
          ...(f.types ? { types: f.types.replace(/\s+/g, '') } : {}),
          ...(f.handle ? { handle: f.handle } : {}),
          ...(f.wallet ? { wallet: f.wallet } : {}),
        }),
      );
      setApplied(query);
      setCursors([...history, after]);
      resultsRef.current?.focus();
    } catch (err) {
      setError(errorText(err));
    } finally {
      setBusy(false);
    }
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const after = filters.after.trim();
    void read(filters, after ? Number(after) : undefined, []);
  }

  return (
    <>
      <section aria-labelledby="filters-heading">
        <h2 id="filters-heading">Filters</h2>
        <FiltersForm filters={filters} setFilters={setFilters} busy={busy} submit={submit} />
        <ErrorNotice>{error}</ErrorNotice>
      </section>
      <section aria-labelledby="events-heading">
        <h2 id="events-heading" tabIndex={-1} ref={resultsRef}>
          Events
        </h2>
        {page === null ? (
          <p>{busy ? 'Reading the log…' : 'Choose filters (or none) and read the log.'}</p>
        ) : page.events.length === 0 ? (
          <p>No events match these filters{cursors.at(-1) === undefined ? '' : ` after sequence ${cursors.at(-1)}`}.</p>
        ) : (
          <>
            <p className="hint" aria-live="polite">
              Sequences {page.events[0]!.sequence}–{page.events.at(-1)!.sequence}
              {page.has_more ? '; more follow.' : '; the end of the log.'}
            </p>
            <EventTable events={page.events} />
          </>
        )}
        <p className="actions">
          {cursors.length > 1 && (
            <button
              type="button"
              className="secondary"
              disabled={busy}
              onClick={() => void read(applied, cursors.at(-2), cursors.slice(0, -2))}
            >
              Previous page
            </button>
          )}
          {page?.has_more && page.next_after !== null && (
            <button type="button" disabled={busy} onClick={() => void read(applied, page.next_after!, cursors)}>
              Next page
            </button>
          )}
        </p>
      </section>
    </>
  );
}

function FiltersForm({
  filters,
  setFilters,
  busy,
  submit,
}: {
  filters: Filters;
  setFilters: (filters: Filters) => void;
  busy: boolean;
  submit: (event: FormEvent) => void;
}) {
  const set = (key: keyof Filters) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement>) =>
    setFilters({ ...filters, [key]: e.target.value });
  return (
    <form className="inline" onSubmit={submit}>
      <label>
        Types (comma-separated: types, families, *)
        <input
          type="text"
          value={filters.types}
          onChange={set('types')}
          placeholder="handle.*, record.set"
          spellCheck={false}
        />
      </label>
      <label>
        Handle
        <input type="text" value={filters.handle} onChange={set('handle')} placeholder="@alice" spellCheck={false} />
      </label>
      <label>
        Wallet
        <input type="text" value={filters.wallet} onChange={set('wallet')} spellCheck={false} />
      </label>
      <label>
        After sequence (empty: from the oldest kept)
        <input type="number" min={0} step={1} value={filters.after} onChange={set('after')} />
      </label>
      <label>
        Page size
        <select value={filters.limit} onChange={set('limit')}>
          {PAGE_SIZES.map((n) => (
            <option key={n} value={n}>
              {n}
            </option>
          ))}
        </select>
      </label>
      <button type="submit" disabled={busy}>
        {busy ? 'Reading…' : 'Read the log'}
      </button>
    </form>
  );
}

function EventTable({ events }: { events: Page['events'] }) {
  return (
    <div className="scroll">
      <table data-testid="event-log" className="stacked">
        <thead>
          <tr>
            <th scope="col">Sequence</th>
            <th scope="col">Type</th>
            <th scope="col">Handle</th>
            <th scope="col">Signer</th>
            <th scope="col">Block time</th>
            <th scope="col">Payload</th>
          </tr>
        </thead>
        <tbody>
          {events.map((e) => (
            <tr key={e.id} data-sequence={e.sequence}>
              <td data-label="Sequence">{e.sequence}</td>
              <td data-label="Type" className="mono">
                {e.type}
              </td>
              <td data-label="Handle" className="mono">
                {e.handle ? `@${e.handle.name}` : '—'}
              </td>
              <td data-label="Signer" className="mono">
                {e.actors.signer}
              </td>
              <td data-label="Block time">{e.chain.blockTime ?? `slot ${e.chain.slot}`}</td>
              <td data-label="Payload">
                <details>
                  <summary>
                    JSON <span className="visually-hidden">of event {e.sequence}</span>
                  </summary>
                  <pre>{JSON.stringify(e, null, 2)}</pre>
                </details>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
