// The MCP process's configuration: read once from the environment at start, validated with zod, one line per bad
// variable (main.ts prints them and exits 1). The names are the spec's; the defaults make a local start work.
import { isAddress } from '@solana/kit';
import { z } from 'zod';
import { caFile, ConfigError, httpUrl, nonEmpty, presentVariables } from '../platform/config';

/** `host:port`; an IPv6 host in brackets. Port 0 = any free port (tests). */
const bind = nonEmpty.transform((v, ctx) => {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/.exec(v);
  const port = m ? Number(m[2]) : NaN;
  if (!m || port > 65535) {
    ctx.addIssue({ code: 'custom', message: 'must be host:port (e.g. 0.0.0.0:8696 or [::1]:8696)' });
    return z.NEVER;
  }
  return { host: m[1]!.replace(/^\[|\]$/g, ''), port };
});

const hostList = z
  .string()
  .trim()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().regex(/^[a-z0-9.:\[\]-]{1,255}$/, 'each entry must be a host name (no port)')));

const flag = z
  .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1');

const ENV = {
  SIGIL_RPC_URL: httpUrl,
  SIGIL_PROGRAM_ID: nonEmpty.refine((v) => isAddress(v), 'must be a base58 public key (32 bytes)'),
  // The service's default listen address (platform/config.ts: HOST 127.0.0.1, PORT 8787).
  SIGIL_API_URL: httpUrl.default('http://127.0.0.1:8787'),
  SIGIL_QUERY_API_URL: httpUrl.optional(),
  // The MCP process's own key for the query API (agents call read tools without one; docs/mcp.md).
  SIGIL_QUERY_API_KEY: nonEmpty.optional(),
  // As in the service: the network manifests must declare, and the gateway ipfs:// manifests go through.
  SIGIL_NETWORK: z.enum(['mainnet', 'testnet'], { error: 'must be mainnet or testnet' }).default('testnet'),
  SIGIL_IPFS_GATEWAY: httpUrl.refine((v) => v.startsWith('https://'), 'must be an https URL').optional(),
  // Local only, as in the service: the CA of the demo agent host (npm start); refused in production.
  SIGIL_OUTBOUND_CA_FILE: caFile.optional(),
  MCP_BIND: bind.default({ host: '0.0.0.0', port: 8696 }),
  // Host names accepted in Host and Origin besides the loopback names and the bind host (a public deployment's own
  // name); anything else is refused (DNS rebinding).
  MCP_ALLOWED_HOSTS: hostList.default([]),
  SIGIL_RPC_TIMEOUT_MS: z.coerce
    .number({ error: 'must be an integer' })
    .int('must be an integer')
    .min(100, 'must be at least 100')
    .max(120_000, 'must be at most 120000')
    .default(5000),
  NODE_ENV: z
    .enum(['development', 'production', 'test'], { error: 'must be development, production or test' })
    .default('development'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be fatal, error, warn, info, debug, trace or silent',
    })
    .default('info'),
  // Local development only, as in the service: manifests and probes may reach loopback receivers.
  SIGIL_OUTBOUND_ALLOW_LOOPBACK: flag.default(false),
} satisfies Record<string, z.ZodType>;

const envSchema = z.object(ENV);

function toConfig(env: z.output<typeof envSchema>) {
  return {
    rpcUrl: env.SIGIL_RPC_URL,
    rpcTimeoutMs: env.SIGIL_RPC_TIMEOUT_MS,
    programId: env.SIGIL_PROGRAM_ID,
    /** Without a trailing slash. */
    apiUrl: env.SIGIL_API_URL.replace(/\/+$/, ''),
    queryApiUrl: env.SIGIL_QUERY_API_URL?.replace(/\/+$/, ''),
    queryApiKey: env.SIGIL_QUERY_API_KEY,
    network: env.SIGIL_NETWORK,
    ipfsGateway: env.SIGIL_IPFS_GATEWAY,
    outboundCa: env.SIGIL_OUTBOUND_CA_FILE,
    bind: env.MCP_BIND,
    allowedHosts: env.MCP_ALLOWED_HOSTS as readonly string[],
    nodeEnv: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    outboundAllowLoopback: env.SIGIL_OUTBOUND_ALLOW_LOOPBACK,
  };
}

export type McpConfig = Readonly<ReturnType<typeof toConfig>>;

/**
 * Pure: validates `env` and returns the configuration, or throws the list of every bad variable (one ConfigError
 * each). Empty strings count as unset.
 */
export function loadMcpConfig(env: Record<string, string | undefined>): McpConfig {
  const input = presentVariables(env, Object.keys(ENV));
  const parsed = envSchema.safeParse(input);
  const errors: ConfigError[] = [];
  if (!parsed.success) {
    const seen = new Set<string>();
    for (const issue of parsed.error.issues) {
      const variable = String(issue.path[0] ?? 'environment');
      if (seen.has(variable)) continue;
      seen.add(variable);
      const got = input[variable];
      errors.push(
        new ConfigError(
          variable,
          `${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(got.slice(0, 80))})`}`,
        ),
      );
    }
  } else if (parsed.data.SIGIL_OUTBOUND_ALLOW_LOOPBACK && parsed.data.NODE_ENV === 'production') {
    // Loopback receivers are a local-testing convenience; in production they would be an SSRF hole.
    errors.push(
      new ConfigError(
        'SIGIL_OUTBOUND_ALLOW_LOOPBACK',
        'must not be set when NODE_ENV=production (local development only)',
      ),
    );
  }
  if (parsed.success && parsed.data.SIGIL_OUTBOUND_CA_FILE !== undefined && parsed.data.NODE_ENV === 'production') {
    errors.push(
      new ConfigError('SIGIL_OUTBOUND_CA_FILE', 'must not be set when NODE_ENV=production (local development only)'),
    );
  }
  if (errors.length > 0 || !parsed.success) throw new McpConfigErrors(errors);
  return Object.freeze(toConfig(parsed.data));
}

/** Every bad variable at once, so an operator fixes them in one pass. */
export class McpConfigErrors extends Error {
  constructor(readonly errors: readonly ConfigError[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'McpConfigErrors';
  }
}
