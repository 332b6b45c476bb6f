'use client';
// Usage over time (usageHistory.history): stacked bars per outcome, the limit that applies to one bucket drawn as
// a line, for the account or one key, over the last 24 h, 7 d or 30 d. Recharts renders SVG from the data; the
// same numbers are in a table below the chart for screen readers and for copying.
import { useCallback, useEffect, useMemo, useState } from 'react';
import { scaleSymlog, type ScaleSymLog } from 'd3-scale';
import {
  Bar,
  BarChart,
  CartesianGrid,
  Legend,
  ReferenceLine,
  ResponsiveContainer,
  Tooltip,
  XAxis,
  YAxis,
} from 'recharts';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { counted } from '../lib/plural';
import { errorText, isSessionLost, trpc } from '../lib/trpc';
import { RequestLog } from './request-log';
import { useSession } from './session';
import { ErrorNotice } from './notice';

type History = inferRouterOutputs<AppRouter>['usageHistory']['history'];
type Range = History['range'];

const RANGES: { value: Range; label: string }[] = [
  { value: '1h', label: 'Last hour' },
  { value: '24h', label: 'Last 24 hours' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
];

/** Outcome → legend text and a color readable on both themes' backgrounds (3:1 against each). */
const OUTCOMES = [
  { key: 'served', label: 'Served', color: 'var(--chart-served)' },
  { key: 'client_error', label: '4xx', color: 'var(--chart-4xx)' },
  { key: 'rate_limited', label: '429 rate-limited', color: 'var(--chart-429)' },
  { key: 'server_error', label: '5xx', color: 'var(--chart-5xx)' },
  { key: 'paid', label: 'x402-paid', color: 'var(--chart-paid)' },
] as const;

/** 0, 1, 10, 100, … up to `top`: the ticks of a symmetric-log axis. */
function decadeTicks(top: number): number[] {
  const ticks = [0];
  for (let t = 1; t <= top; t *= 10) ticks.push(t);
  return ticks;
}

/** The most one key may make in one bucket: the per-minute limit times the minutes, capped by the daily limit. */
function bucketLimit(history: History): number {
  const minutes = history.bucket_ms / 60_000;
  return Math.min(history.limits.minute * minutes, history.limits.day);
}

function tick(history: History, start: number): string {
  const d = new Date(start);
  return history.bucket_ms >= 86_400_000
    ? d.toLocaleDateString(undefined, { month: 'short', day: 'numeric' })
    : history.range === '24h' || history.range === '1h'
      ? d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
      : d.toLocaleString(undefined, { weekday: 'short', hour: '2-digit' });
}

export function UsageChart({ keyId, keys }: { keyId?: string; keys: { id: string; name: string | null }[] }) {
  const { setSession } = useSession();
  const [range, setRange] = useState<Range>('24h');
  const [selected, setSelected] = useState<string>(keyId ?? '');
  const [history, setHistory] = useState<History | null>(null);
  const [error, setError] = useState('');

  const load = useCallback(async () => {
    setError('');
    try {
      setHistory(await trpc.usageHistory.history.query(selected ? { range, key_id: selected } : { range }));
    } catch (err) {
      if (isSessionLost(err)) setSession(null);
      else setError(errorText(err));
    }
  }, [range, selected, setSession]);

  useEffect(() => {
    setHistory(null);
    void load();
  }, [load]);

  const total = history
    ? history.buckets.reduce((n, b) => n + b.served + b.client_error + b.rate_limited + b.server_error + b.paid, 0)
    : 0;
  const limit = history ? bucketLimit(history) : 0;
  const peak = history
    ? Math.max(0, ...history.buckets.map((b) => b.served + b.client_error + b.rate_limited + b.server_error + b.paid))
    : 0;
  // Symmetric-log scale: a handful of calls stays visible next to a limit in the thousands, and zero is allowed.
  const yScale = useMemo(() => scaleSymlog(), []);

  const selectedKey = keys.find((k) => k.id === selected);
  return (
    <>
      <section aria-labelledby="history-heading">
        <h2 id="history-heading">Usage over time</h2>
        <UsageFilters
          keys={keys}
          selected={selected}
          setSelected={setSelected}
          range={range}
          setRange={setRange}
          refresh={() => void load()}
        />
        <ErrorNotice>{error}</ErrorNotice>
        {history === null ? (
          !error && <p aria-live="polite">Loading usage…</p>
        ) : (
          <>
            <p role="status" data-testid="usage-total">
              {counted(total, 'request')} in this range
              {total === 0 ? ' — no calls yet. Make a request with one of your keys and refresh.' : '.'}
            </p>
            <Chart history={history} yScale={yScale} limit={limit} peak={peak} wholeAccount={!selected} />
            <UsageNumbers history={history} />
          </>
        )}
      </section>
      <RequestLog
        keyId={selected}
        keyName={selectedKey ? (selectedKey.name ?? selectedKey.id) : 'Your whole account'}
      />
    </>
  );
}

/** Which key (or the whole account) and which range. */
function UsageFilters({
  keys,
  selected,
  setSelected,
  range,
  setRange,
  refresh,
}: {
  keys: { id: string; name: string | null }[];
  selected: string;
  setSelected: (key: string) => void;
  range: Range;
  setRange: (range: Range) => void;
  refresh: () => void;
}) {
  return (
    <form className="inline" onSubmit={(e) => e.preventDefault()}>
      <label>
        Key
        <select value={selected} onChange={(e) => setSelected(e.target.value)}>
          <option value="">Whole account</option>
          {keys.map((k) => (
            <option key={k.id} value={k.id}>
              {k.name ? `${k.name} (${k.id})` : k.id}
            </option>
          ))}
        </select>
      </label>
      <fieldset className="segmented">
        <legend>Range</legend>
        {RANGES.map((r) => (
          <label key={r.value} className="choice">
            <input
              type="radio"
              name="range"
              value={r.value}
              checked={range === r.value}
              onChange={() => setRange(r.value)}
            />
            {r.label}
          </label>
        ))}
      </fieldset>
      <button type="button" className="secondary" onClick={refresh}>
        Refresh
      </button>
    </form>
  );
}

/** The stacked bars per outcome on a symmetric-log axis, with the limit of one bucket as a dashed line. */
function Chart({
  history,
  yScale,
  limit,
  peak,
  wholeAccount,
}: {
  history: History;
  yScale: ScaleSymLog<number, number>;
  limit: number;
  peak: number;
  wholeAccount: boolean;
}) {
  return (
    <figure className="chart">
      <div style={{ width: '100%', height: 320 }} aria-hidden="true">
        <ResponsiveContainer>
          <BarChart
            data={history.buckets}
            margin={{ top: 16, right: 16, bottom: 8, left: 8 }}
            accessibilityLayer={false}
          >
            <CartesianGrid stroke="var(--line)" vertical={false} />
            <XAxis
              dataKey="start"
              tickFormatter={(v: number) => tick(history, v)}
              stroke="var(--muted)"
              tick={{ fill: 'var(--fg)' }}
              minTickGap={24}
            />
            <YAxis
              allowDecimals={false}
              scale={yScale}
              stroke="var(--muted)"
              tick={{ fill: 'var(--fg)' }}
              domain={[0, (max: number) => Math.max(max, limit)]}
              ticks={decadeTicks(Math.max(limit, peak))}
            />
            <Tooltip
              labelFormatter={(v) => new Date(Number(v)).toLocaleString()}
              contentStyle={{ background: 'var(--bg)', border: '1px solid var(--line)', color: 'var(--fg)' }}
            />
            <Legend formatter={(value: string) => <span style={{ color: 'var(--fg)' }}>{value}</span>} />
            {OUTCOMES.map((o) => (
              <Bar
                key={o.key}
                dataKey={o.key}
                name={o.label}
                stackId="calls"
                fill={o.color}
                isAnimationActive={false}
              />
            ))}
            <ReferenceLine
              y={limit}
              stroke="var(--bad)"
              strokeDasharray="6 4"
              label={{
                value: `limit ${limit.toLocaleString()} / bucket`,
                fill: 'var(--fg)',
                position: 'insideTopRight',
              }}
            />
          </BarChart>
        </ResponsiveContainer>
      </div>
      <figcaption className="hint">
        {wholeAccount ? 'Your whole account' : 'This key'}: requests per{' '}
        {history.bucket_ms >= 86_400_000 ? 'UTC day' : history.bucket_ms >= 3_600_000 ? 'hour' : 'minute'} by outcome,
        on a logarithmic scale (zero included). The dashed line is the most one key may make in one bucket (
        {history.limits.minute.toLocaleString()} per minute, {history.limits.day.toLocaleString()} per UTC day). Counts
        are written every few seconds.
      </figcaption>
    </figure>
  );
}

/** The same numbers as a table, for screen readers and for copying: the buckets with any call. */
function UsageNumbers({ history }: { history: History }) {
  return (
    <details>
      <summary>The numbers behind the chart</summary>
      <div className="scroll">
        <table data-testid="usage-table">
          <thead>
            <tr>
              <th scope="col">From</th>
              {OUTCOMES.map((o) => (
                <th scope="col" key={o.key}>
                  {o.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {history.buckets
              .filter((b) => b.served + b.client_error + b.rate_limited + b.server_error + b.paid > 0)
              .map((b) => (
                <tr key={b.start}>
                  <td>{new Date(b.start).toLocaleString()}</td>
                  {OUTCOMES.map((o) => (
                    <td key={o.key}>{b[o.key]}</td>
                  ))}
                </tr>
              ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
