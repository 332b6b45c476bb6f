// The lookup, on the portal's server (the home page is a server component): the public resolve or reverse, then for
// a handle its address records (GET /v1/resolve/{name}) and, for an agent, its manifest (GET /v1/agents/{handle})
// and verification level (GET /v1/agents/{handle}/level), all keyed with the portal's own key. Nothing reaches the browser but the rendered answer, so a name that is not
// registered (or a handle that is not an agent) logs no failed request in the browser's console.
import { API_KEY_HEADER } from '@sigil/contract/http-headers';
import { isBase58Address } from '@sigil/contract/names';
import type { AgentLevelResult, AgentResolution } from '@sigil/contract/agents';
import type { V1Resolution } from '@sigil/contract/universal';
import { UPSTREAM_TIMEOUT_MS } from './connect-proxy';
import type { PortalServerConfig } from './server-config';

export type LookupResult =
  | {
      kind: 'resolution';
      query: string;
      resolution: { name: string; namespace: string; owner: string; tokenized: boolean; verification: string };
      records: V1Resolution | null;
      agent: AgentResolution | null;
      /** The agent's verification level; present even when its manifest could not be read (it is then L0). */
      level: AgentLevelResult | null;
      /** Parts that could not be read, with the service's message; the public answer stands either way. */
      problems: string[];
    }
  | { kind: 'reverse'; query: string; address: string; handle: string }
  | { kind: 'error'; query: string; text: string };

/** The agent refusals that mean "nothing to show" rather than a failed read. */
const NOT_AGENT = new Set(['NOT_AN_AGENT', 'NO_MANIFEST']);

async function getJson(
  config: PortalServerConfig,
  path: string,
  keyed: boolean,
  fetchImpl: typeof fetch,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (keyed && config.portalKey) headers[API_KEY_HEADER.toLowerCase()] = config.portalKey;
  const res = await fetchImpl(`${config.apiBase}${path}`, {
    headers,
    signal: AbortSignal.timeout(UPSTREAM_TIMEOUT_MS),
    cache: 'no-store',
  });
  const body = (await res.json().catch(() => ({}))) as Record<string, unknown>;
  return { status: res.status, body };
}

const errorOf = (body: Record<string, unknown>, status: number) =>
  typeof body.message === 'string'
    ? `${body.message} (${String(body.code)})`
    : typeof body.error === 'string'
      ? body.error
      : `HTTP ${status}`;

export async function lookup(
  query: string,
  config: PortalServerConfig,
  fetchImpl: typeof fetch = fetch,
): Promise<LookupResult> {
  const value = query.trim();
  try {
    // The service's own rule for a wallet (32 bytes in base58); `@…` is always a name.
    if (!value.startsWith('@') && isBase58Address(value)) {
      const { status, body } = await getJson(config, `/reverse/${encodeURIComponent(value)}`, false, fetchImpl);
      if (status !== 200) return { kind: 'error', query: value, text: errorOf(body, status) };
      return { kind: 'reverse', query: value, address: String(body.address), handle: String(body.handle) };
    }
    const { status, body } = await getJson(config, `/resolve/${encodeURIComponent(value)}`, false, fetchImpl);
    if (status !== 200) return { kind: 'error', query: value, text: errorOf(body, status) };
    const resolution = body as Extract<LookupResult, { kind: 'resolution' }>['resolution'];
    const result: Extract<LookupResult, { kind: 'resolution' }> = {
      kind: 'resolution',
      query: value,
      resolution,
      records: null,
      agent: null,
      level: null,
      problems: [],
    };
    if (resolution.namespace !== 'handle') return result;
    if (!config.portalKey) {
      result.problems.push('address records and agent manifests need the portal key (SIGIL_PORTAL_KEY)');
      return result;
    }
    const name = encodeURIComponent(resolution.name);
    const [records, agent, level] = await Promise.all([
      getJson(config, `/v1/resolve/@${name}`, true, fetchImpl),
      getJson(config, `/v1/agents/${name}`, true, fetchImpl),
      getJson(config, `/v1/agents/${name}/level`, true, fetchImpl),
    ]);
    if (records.status === 200) result.records = records.body as unknown as V1Resolution;
    else result.problems.push(`address records: ${errorOf(records.body, records.status)}`);
    if (agent.status === 200) result.agent = agent.body as unknown as AgentResolution;
    else if (!NOT_AGENT.has(String(agent.body.code)))
      result.problems.push(`agent: ${errorOf(agent.body, agent.status)}`);
    if (level.status === 200) result.level = level.body as unknown as AgentLevelResult;
    else if (!NOT_AGENT.has(String(level.body.code)))
      result.problems.push(`agent level: ${errorOf(level.body, level.status)}`);
    return result;
  } catch {
    return { kind: 'error', query: value, text: 'the Sigil service did not answer; try again' };
  }
}
