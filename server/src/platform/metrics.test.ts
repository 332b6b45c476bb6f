import { describe, expect, it } from 'vitest';
import { createMetrics } from './metrics';

describe('metrics', () => {
  it('counts RPC calls and errors by method and kind', async () => {
    const m = createMetrics();
    m.recordRpcCall({ method: 'getAccountInfo', durationMs: 12 });
    m.recordRpcCall({ method: 'getAccountInfo', durationMs: 30, error: 'unreachable' });
    m.recordRpcCall({ method: 'getProgramAccounts', durationMs: 5, error: 'malformed' });
    const text = await m.render();
    expect(text).toMatch(/^sigil_rpc_calls_total\{method="getAccountInfo"\} 2$/m);
    expect(text).toMatch(/^sigil_rpc_errors_total\{method="getAccountInfo",kind="unreachable"\} 1$/m);
    expect(text).toMatch(/^sigil_rpc_errors_total\{method="getProgramAccounts",kind="malformed"\} 1$/m);
    expect(text).toMatch(/^sigil_rpc_call_duration_seconds_bucket\{le="0.025",method="getAccountInfo"\} 1$/m);
  });

  it('works as a detached function (the chain reader calls it without `this`)', async () => {
    const m = createMetrics();
    const hook = m.recordRpcCall;
    hook({ method: 'getSlot', durationMs: 1 });
    expect(await m.render()).toMatch(/^sigil_rpc_calls_total\{method="getSlot"\} 1$/m);
  });

  it('keeps one registry per instance', async () => {
    const a = createMetrics();
    const b = createMetrics();
    a.observeHttp('GET', '/health', 200, 0.001);
    expect(await a.render()).toContain('route="/health"');
    expect(await b.render()).not.toContain('route="/health"');
  });

  it('counts 429 answers as rate-limit rejections by route', async () => {
    const m = createMetrics();
    m.observeHttp('GET', '/v1/resolve/{name}', 429, 0.001);
    m.observeHttp('GET', '/v1/resolve/{name}', 429, 0.001);
    m.observeHttp('GET', '/v1/resolve/{name}', 200, 0.001);
    expect(await m.render()).toMatch(/^sigil_rate_limit_rejections_total\{route="\/v1\/resolve\/\{name\}"\} 2$/m);
  });
});
