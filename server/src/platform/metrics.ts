// Prometheus metrics (prom-client), one registry per app instance so tests can build several apps side by side.
// HTTP metrics are labelled by route template (`/resolve/{name}`), never by raw path, to keep cardinality bounded.
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { RpcCallEvent } from './chain/types';

export interface Metrics {
  readonly registry: Registry;
  /** Record one finished HTTP request. `route` is a template or a fixed label such as `unmatched`. */
  observeHttp(method: string, route: string, status: number, seconds: number): void;
  /** Pass this as the chain reader's `onRpcCall` hook. */
  recordRpcCall(event: RpcCallEvent): void;
  /** The exposition text for GET /metrics. */
  render(): Promise<string>;
  readonly contentType: string;
}

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: 'sigil_' });

  const requests = new Counter({
    name: 'sigil_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'sigil_http_request_duration_seconds',
    help: 'HTTP request latency in seconds, by method and route template.',
    labelNames: ['method', 'route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const rpcCalls = new Counter({
    name: 'sigil_rpc_calls_total',
    help: 'Chain JSON-RPC calls made, by method.',
    labelNames: ['method'] as const,
    registers: [registry],
  });
  const rpcErrors = new Counter({
    name: 'sigil_rpc_errors_total',
    help: 'Chain JSON-RPC calls that failed, by method and kind (unreachable | malformed).',
    labelNames: ['method', 'kind'] as const,
    registers: [registry],
  });
  const rpcDuration = new Histogram({
    name: 'sigil_rpc_call_duration_seconds',
    help: 'Chain JSON-RPC call latency in seconds, by method.',
    labelNames: ['method'] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });

  const rateLimited = new Counter({
    name: 'sigil_rate_limit_rejections_total',
    help: 'Requests refused with 429 (RATE_LIMITED), by route template.',
    labelNames: ['route'] as const,
    registers: [registry],
  });

  // Each request's series, bound once: labelling by object hashes the labels on every observation (a measurable part
  // of a replayed public answer's cost). Bounded: methods × statuses × route templates (never raw paths).
  const httpSeries = new Map<
    string,
    { requests: ReturnType<typeof requests.labels>; duration: ReturnType<typeof duration.labels> }
  >();

  return {
    registry,
    contentType: registry.contentType,
    observeHttp(method, route, status, seconds) {
      const key = `${method} ${status} ${route}`;
      let series = httpSeries.get(key);
      if (!series) {
        series = {
          requests: requests.labels({ method, route, status: String(status) }),
          duration: duration.labels({ method, route }),
        };
        httpSeries.set(key, series);
      }
      series.requests.inc();
      series.duration.observe(seconds);
      if (status === 429) rateLimited.inc({ route });
    },
    recordRpcCall(event) {
      rpcCalls.inc({ method: event.method });
      rpcDuration.observe({ method: event.method }, event.durationMs / 1000);
      if (event.error) rpcErrors.inc({ method: event.method, kind: event.error });
    },
    render: () => registry.metrics(),
  };
}
