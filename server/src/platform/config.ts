// Configuration: read once from the environment at start, validated with zod. A bad value stops the process with
// one line naming the variable (see main.ts). To add a variable: add one entry to `ENV` below (its zod schema,
// with its default) and one line to `toConfig`. Nothing else reads process.env.
import { createPublicKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { delimiter } from 'node:path';
import { isAddress } from '@solana/kit';
import { z } from 'zod';
import { TOKEN_PROGRAM_ADDRESS } from './chain/programs';
import { resolveDatabaseTarget } from './db/connect';

/** A set, non-blank value (shared with the MCP process's config). */
export const nonEmpty = z
  .string({ error: (iss) => (iss.input === undefined ? 'is required' : 'must be a string') })
  .trim()
  .min(1, 'must not be empty');
const integer = z.coerce.number({ error: 'must be an integer' }).int('must be an integer');

/** An http(s) URL. */
export const httpUrl = nonEmpty.refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'http:' || u.protocol === 'https:';
  } catch {
    return false;
  }
}, 'must be an http(s) URL');

/** Optional http(s) URL: unset or empty means "not configured". */
const optionalHttpUrl = z
  .string()
  .trim()
  .optional()
  .transform((v) => (v ? v : undefined))
  .pipe(httpUrl.optional());

const port = integer.min(0, 'must be 0-65535').max(65535, 'must be 0-65535');

const programId = nonEmpty.refine((v) => isAddress(v), 'must be a base58 public key (32 bytes)');

const suffixList = z
  .string()
  .trim()
  .transform((v) =>
    v
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  )
  .pipe(
    z
      .array(z.string().regex(/^[a-z0-9]{1,32}$/, 'each suffix must be 1-32 characters a-z0-9'))
      .min(1, 'must list at least one suffix'),
  );

/** x402's default asset: the wrapped-native mint (9 decimals). */
export const WRAPPED_NATIVE_MINT = 'So11111111111111111111111111111111111111112';

/** A price in smallest units: a positive decimal integer that fits in u64. */
const price = nonEmpty
  .regex(/^[1-9][0-9]{0,19}$/, 'must be a positive integer (smallest units of the asset)')
  .transform((v) => BigInt(v))
  .refine((v) => v < 2n ** 64n, 'must fit in 64 bits');

/** Every environment variable the service reads, with its rule and default. */
/**
 * PEM files of CA certificates, read at start (SIGIL_OUTBOUND_CA_FILE; the MCP process reads the same): one path, or
 * several joined by the path delimiter (`:` on Linux and macOS, as in PATH). Each must hold a certificate.
 */
export const caFile = nonEmpty
  .transform((paths, ctx) => {
    const pems: string[] = [];
    for (const path of paths.split(delimiter).filter(Boolean)) {
      try {
        pems.push(readFileSync(path, 'utf8'));
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code ?? 'error';
        ctx.addIssue({
          code: 'custom',
          message: `cannot be read (${code}${paths.includes(delimiter) ? `: ${path}` : ''})`,
        });
        return z.NEVER;
      }
    }
    return pems;
  })
  .refine(
    (pems) => pems.length > 0 && pems.every((pem) => pem.includes('-----BEGIN CERTIFICATE-----')),
    'must be a PEM file of CA certificates',
  )
  .transform((pems) => pems.join('\n'));

/** A PEM SPKI public key on P-256 (what ES256 verifies with). Escaped newlines (`\n`) are accepted, as env files write them. */
function isP256Spki(pem: string): boolean {
  try {
    const key = createPublicKey(pem.replaceAll('\\n', '\n'));
    return key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1';
  } catch {
    return false;
  }
}

const ENV = {
  PORT: port.default(8787),
  HOST: nonEmpty.default('127.0.0.1'),
  NODE_ENV: z
    .enum(['development', 'production', 'test'], { error: 'must be development, production or test' })
    .default('development'),
  LOG_LEVEL: z
    .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], {
      error: 'must be fatal, error, warn, info, debug, trace or silent',
    })
    .default('info'),
  SIGIL_PUBLIC_URL: httpUrl.optional(),
  SIGIL_PORTAL_URL: httpUrl.optional(),
  // No defaults for what the service reads: a deployment must say which chain and program (dev.ts sets both).
  SIGIL_RPC_URL: httpUrl,
  SIGIL_RPC_TIMEOUT_MS: integer.min(100, 'must be at least 100').max(120_000, 'must be at most 120000').default(5000),
  // Every request's deadlines (docs/http.md "Deadlines"): receiving it whole (headers and body; 408 after), and the
  // one budget all chain reads of one request share (502 rpc unreachable / RPC_ERROR once spent).
  SIGIL_REQUEST_TIMEOUT_MS: integer
    .min(100, 'must be at least 100')
    .max(300_000, 'must be at most 300000')
    .default(10_000),
  SIGIL_REQUEST_DEADLINE_MS: integer
    .min(100, 'must be at least 100')
    .max(120_000, 'must be at most 120000')
    .default(6000),
  // The drain window after SIGTERM (docs/deploy.md "Graceful drain"): /ready answers 503 and every connection is
  // still served, so the balancer notices before the listener closes.
  SIGIL_DRAIN_MS: integer.min(0, 'must be 0 or more').max(60_000, 'must be at most 60000').default(5000),
  SIGIL_PROGRAM_ID: programId,
  SIGIL_CHAIN_NAME: nonEmpty.regex(/^[a-z0-9-]{1,32}$/, 'must be lowercase a-z0-9-').default('x1'),
  SIGIL_DOMAIN_SUFFIXES: suffixList.default(['x1', 'xnt', 'xen']),
  // How long a public resolve/reverse answer may be served from memory (the staleness bound); 0 disables.
  SIGIL_RESOLVE_CACHE_MS: integer.min(0, 'must be 0 or more').max(60_000, 'must be at most 60000').default(1000),
  SIGIL_SOL_RPC_URL: optionalHttpUrl,
  SIGIL_ETH_RPC_URL: optionalHttpUrl,
  // Agents (docs/agents.md): the network manifests must declare, the gateway ipfs:// manifests go through,
  // and the local-only switch that lets outbound requests (manifests, webhooks) reach loopback HTTPS receivers.
  SIGIL_NETWORK: z.enum(['mainnet', 'testnet'], { error: 'must be mainnet or testnet' }).default('testnet'),
  SIGIL_IPFS_GATEWAY: z
    .string()
    .trim()
    .optional()
    .transform((v) => (v ? v : undefined))
    .pipe(httpUrl.refine((v) => v.startsWith('https://'), 'must be an https URL').optional()),
  SIGIL_OUTBOUND_ALLOW_LOOPBACK: z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .transform((v) => v === 'true' || v === '1')
    .default(false),
  // Local only, like the loopback switch: a PEM file of CA certificates outbound requests trust INSTEAD of the system
  // store (npm start points it at the demo agent host's CA). Read at start; refused when NODE_ENV=production.
  SIGIL_OUTBOUND_CA_FILE: caFile.optional(),
  // Pay webhooks (docs/webhooks.md): on by default; off → every /v1/pay/webhooks route answers 503
  // PAY_WEBHOOKS_DISABLED, the pay indexer pass does not run and pay deliveries are not sent.
  SIGIL_PAY_WEBHOOKS: z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .transform((v) => v === 'true' || v === '1')
    .default(true),
  // Identity webhooks (docs/identity-events.md), switched alone: off → every /v1/identity/webhooks route answers 503
  // IDENTITY_WEBHOOKS_DISABLED and identity deliveries are not sent; the identity log keeps being written and served.
  SIGIL_IDENTITY_WEBHOOKS: z
    .enum(['true', 'false', '1', '0'], { error: 'must be true or false' })
    .transform((v) => v === 'true' || v === '1')
    .default(true),
  // Identity events (docs/identity-events.md): days the log keeps an event, and the slot the log starts at on the
  // stream's first run (0: the registry's whole history).
  SIGIL_IDENTITY_RETENTION_DAYS: integer.min(1, 'must be at least 1').max(3650, 'must be at most 3650').default(90),
  SIGIL_IDENTITY_BACKFILL_SLOT: integer.min(0, 'must be 0 or more').default(0),
  // Where the indexer's finalized blocks come from (docs/deploy.md "Chain source"): block polling over SIGIL_RPC_URL,
  // or a Yellowstone gRPC (Geyser) endpoint (its URL and optional x-token below).
  SIGIL_CHAIN_SOURCE: z.enum(['blocks', 'yellowstone'], { error: 'must be blocks or yellowstone' }).default('blocks'),
  SIGIL_YELLOWSTONE_URL: optionalHttpUrl,
  SIGIL_YELLOWSTONE_TOKEN: nonEmpty.optional(),
  // Handle search (docs/search.md): how often the handle index worker rescans the registry; 0 turns it off (the
  // search route then answers from whatever the index holds, empty on a fresh database).
  SIGIL_HANDLE_INDEX_INTERVAL_MS: integer
    .refine((v) => v === 0 || v >= 1000, 'must be 0 (off) or at least 1000')
    .refine((v) => v <= 86_400_000, 'must be at most 86400000')
    .default(10_000),
  // Connect and the portal (docs/connect.md, docs/keys.md).
  SIGIL_PORTAL_DOMAIN: nonEmpty
    .toLowerCase()
    .regex(/^[a-z0-9.-]+(?::\d{1,5})?$/, 'must be a host name (e.g. portal.sigil.local)')
    .default('portal.sigil.local'),
  /** The portal's own API key secret; unset in local mode (generated on first start and printed once). */
  SIGIL_PORTAL_KEY: z.string().trim().optional(),
  /** Sign-in-with-Solana domains accepted by /v1/auth/verify-signin; default: the portal domain + the partner domain. */
  SIGIL_SIGNIN_DOMAINS: z
    .string()
    .trim()
    .transform((v) =>
      v
        .split(',')
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
    )
    .pipe(
      z
        .array(z.string().regex(/^[a-z0-9.-]+(?::\d{1,5})?$/, 'each domain must be a host or host:port'))
        .min(1, 'must list at least one domain'),
    )
    .optional(),
  SIGIL_CHALLENGE_TTL_SECONDS: integer.min(10, 'must be at least 10').max(3600, 'must be at most 3600').default(300),
  SIGIL_SESSION_TTL_SECONDS: integer
    .min(60, 'must be at least 60')
    .max(30 * 86_400, 'must be at most 2592000')
    .default(86_400),
  /** The OpenID Connect sign-in page's challenge and proof steps one client address may make per minute. */
  SIGIL_OIDC_PAGE_LIMIT_PER_MINUTE: integer
    .min(1, 'must be at least 1')
    .max(1_000_000, 'must be at most 1000000')
    .default(300),
  // x402 pay-per-call (docs/x402.md). SIGIL_X402_PAY_TO enables it; prices are smallest units of the asset.
  SIGIL_X402_PAY_TO: programId.optional(),
  SIGIL_X402_ASSET: programId.default(WRAPPED_NATIVE_MINT as never),
  SIGIL_X402_PRICE_RESOLVE: price.default(5_000n),
  SIGIL_X402_PRICE_REVERSE: price.default(5_000n),
  SIGIL_X402_PRICE_VERIFY: price.default(20_000n),
  SIGIL_X402_PRICE_GATE: price.default(20_000n),
  /**
   * Gate's decision-signing key (docs/gate.md "Signed decisions"): the 32-byte Ed25519 seed, base64url. Unset: in
   * development and tests a key is generated once and kept in the db; in production `sign: true` answers 501.
   */
  SIGIL_GATE_SIGNING_KEY: z
    .string()
    .trim()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'must be a 32-byte Ed25519 seed in base64url (43 characters)')
    .optional(),
  // POST /privy/wallet (docs/privy.md): the Privy app whose identity tokens are accepted, and Privy's verification key
  // for it (the dashboard's PEM, SPKI). Both or neither; neither: the route answers 501.
  SIGIL_PRIVY_APP_ID: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .pipe(
      z
        .string()
        .regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be a Privy app id (letters, digits, _ -)')
        .optional(),
    ),
  SIGIL_PRIVY_VERIFICATION_KEY: z
    .string()
    .trim()
    .optional()
    .transform((v) => v || undefined)
    .pipe(
      z
        .string()
        .refine(isP256Spki, 'must be a PEM public key (SPKI) on P-256, as the Privy dashboard shows it')
        .optional(),
    ),
  /** HMAC key for challenge nonces; unset (local mode): generated once and kept in the db, shared by replicas. */
  SIGIL_X402_NONCE_SECRET: z.string().trim().min(32, 'must be at least 32 characters').optional(),
  /** `<domain_tag>` of the reference and redeem strings; default: the host of SIGIL_PUBLIC_URL. */
  SIGIL_X402_DOMAIN_TAG: nonEmpty
    .regex(/^[A-Za-z0-9.:\[\]-]{1,255}$/, 'must be a host name (letters, digits, . - : [ ])')
    .optional(),
  /** Keyless x402 requests (challenges and redemptions) one client address may make per minute. */
  SIGIL_X402_IP_LIMIT_PER_MINUTE: integer
    .min(1, 'must be at least 1')
    .max(1_000_000, 'must be at most 1000000')
    .default(600),
  /** The x402 facilitator (its /verify, /settle, /supported); set: the facilitator rail is offered beside the native. */
  SIGIL_X402_FACILITATOR_URL: optionalHttpUrl,
  /** Deadline of each facilitator call; past it: 502 X402_SETTLE_TIMEOUT (the same payment may be retried). */
  SIGIL_X402_FACILITATOR_TIMEOUT_MS: integer
    .min(100, 'must be at least 100')
    .max(120_000, 'must be at most 120000')
    .default(15_000),
  // Unset: the SQLite file under data/ (platform/db decides the path). The db module's own rule validates it.
  DATABASE_URL: z
    .string()
    .trim()
    .optional()
    .superRefine((url, ctx) => {
      if (!url) return;
      try {
        resolveDatabaseTarget({ url });
      } catch (err) {
        ctx.addIssue({ code: 'custom', message: (err as Error).message.replace(/^DATABASE_URL /, '') });
      }
    }),
} satisfies Record<string, z.ZodType>;

/**
 * What each variable is for, one line each: docs/deploy.md's variable table is generated from `ENV` and this
 * (config-table.ts; a test keeps the two in step). "Replicas: same value" marks what every replica must share.
 */
export const ENV_DOCS: { readonly [K in keyof typeof ENV]: string } = {
  PORT: 'Listen port.',
  HOST: 'Listen address (`0.0.0.0` to accept from other hosts, e.g. behind a load balancer).',
  NODE_ENV: '`production` refuses the local-only switches below; `development` and `test` allow them.',
  LOG_LEVEL: 'pino level for the JSON log lines on stdout, or `silent`.',
  SIGIL_PUBLIC_URL:
    'The base URL clients see (OpenAPI servers, audiences, x402 resource URLs); default `http://HOST:PORT`. Replicas: same value.',
  SIGIL_PORTAL_URL: "The developer portal's address, linked from `GET /` (`npm start` sets its local portal's).",
  SIGIL_RPC_URL: 'The chain JSON-RPC endpoint; only its host is ever shown. Replicas: same chain.',
  SIGIL_RPC_TIMEOUT_MS: 'Bound on one JSON-RPC call.',
  SIGIL_REQUEST_TIMEOUT_MS: 'Longest a client may take to send one whole request (headers and body); 408 after.',
  SIGIL_REQUEST_DEADLINE_MS:
    'Budget all chain reads of one request share; 502 (rpc unreachable / RPC_ERROR) once spent.',
  SIGIL_DRAIN_MS:
    'After SIGTERM: how long /ready answers 503 while every connection is still served, before the listener closes.',
  SIGIL_PROGRAM_ID: 'The registry program address. Replicas: same value.',
  SIGIL_CHAIN_NAME: 'Chain id in the rail name `<chain>-native`.',
  SIGIL_DOMAIN_SUFFIXES: 'Native domain namespaces, comma-separated.',
  SIGIL_RESOLVE_CACHE_MS:
    'How long a resolution may be served from memory (staleness bound): public resolve/reverse, and native names on the keyed /v1/resolve, /v1/resolve-universal and batch; 0 disables.',
  SIGIL_IDENTITY_RETENTION_DAYS: 'Days the identity-change log keeps an event (docs/identity-events.md).',
  SIGIL_IDENTITY_BACKFILL_SLOT:
    "The slot the identity-change log starts at on the stream's first run; 0: the registry's whole history.",
  SIGIL_GATE_SIGNING_KEY:
    "Gate's decision-signing key: a 32-byte Ed25519 seed, base64url. Unset: generated and kept in the database outside production; in production `sign: true` answers 501. Replicas: same value.",
  SIGIL_X402_FACILITATOR_URL:
    'The x402 facilitator (/verify, /settle, /supported); set: the facilitator rail is offered beside the native one.',
  SIGIL_X402_FACILITATOR_TIMEOUT_MS: 'Deadline of each facilitator call; past it 502 X402_SETTLE_TIMEOUT.',
  SIGIL_SOL_RPC_URL: 'Enables the `sol` namespace (SNS) through this Solana RPC.',
  SIGIL_ETH_RPC_URL: 'Enables the `eth` namespace (ENS) through this Ethereum RPC.',
  SIGIL_NETWORK: 'The network agent manifests must declare.',
  SIGIL_IPFS_GATEWAY: 'https gateway for `ipfs://` manifests; unset: ipfs manifests are not fetched.',
  SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'Local only (refused in production): outbound requests may reach loopback receivers.',
  SIGIL_OUTBOUND_CA_FILE:
    'Local only (refused in production): PEM files (`:`-separated) of CA certificates outbound requests trust besides the system store.',
  SIGIL_PAY_WEBHOOKS:
    'Pay webhooks routes, indexer pass and deliveries; off: the routes answer 503 PAY_WEBHOOKS_DISABLED.',
  SIGIL_IDENTITY_WEBHOOKS:
    'Identity webhooks routes and deliveries; off: they answer 503 IDENTITY_WEBHOOKS_DISABLED (the log keeps serving).',
  SIGIL_CHAIN_SOURCE:
    "Where the indexer's finalized blocks come from: `blocks` (getBlocks/getBlock over SIGIL_RPC_URL, any node) or `yellowstone` (a Geyser gRPC stream).",
  SIGIL_YELLOWSTONE_URL:
    "The Yellowstone gRPC (Geyser) endpoint, http(s); required with SIGIL_CHAIN_SOURCE=yellowstone (npm start: the local chain's).",
  SIGIL_YELLOWSTONE_TOKEN: 'Sent as `x-token` to the Yellowstone endpoint, as hosted endpoints require. Secret.',
  SIGIL_HANDLE_INDEX_INTERVAL_MS: 'Pause between handle index passes (search); 0: the worker does not start.',
  SIGIL_PORTAL_DOMAIN: "The portal's domain (its API key id, a default sign-in domain). Replicas: same value.",
  SIGIL_PORTAL_KEY:
    "The portal's API key secret; unset: generated on first start and printed once. Secret; replicas: same value.",
  SIGIL_SIGNIN_DOMAINS: 'Sign-in-with-Solana domains accepted; default: the portal domain and the partner domain.',
  SIGIL_CHALLENGE_TTL_SECONDS: 'Lifetime of a Connect challenge.',
  SIGIL_SESSION_TTL_SECONDS: 'Lifetime of a Connect session.',
  SIGIL_OIDC_PAGE_LIMIT_PER_MINUTE:
    "Challenge and proof steps of the OpenID Connect sign-in page one client address may make per minute (each replica's own count).",
  SIGIL_X402_PAY_TO: 'Enables x402 pay-per-call: the wallet payments go to. Replicas: same value.',
  SIGIL_X402_ASSET: 'The mint x402 payments transfer.',
  SIGIL_X402_PRICE_RESOLVE: 'x402 price of a resolve, smallest units of the asset.',
  SIGIL_X402_PRICE_REVERSE: 'x402 price of a reverse lookup, smallest units.',
  SIGIL_X402_PRICE_VERIFY: 'x402 price of a verify, smallest units.',
  SIGIL_X402_PRICE_GATE: 'x402 price of a gate check, smallest units.',
  SIGIL_PRIVY_APP_ID:
    'The Privy app whose identity tokens POST /privy/wallet accepts (their `aud`); with SIGIL_PRIVY_VERIFICATION_KEY. Unset: 501.',
  SIGIL_PRIVY_VERIFICATION_KEY:
    "Privy's ES256 verification key for that app: PEM (SPKI), `\\n` escapes accepted. Replicas: same value.",
  SIGIL_X402_NONCE_SECRET:
    'HMAC key of x402 challenge nonces (32+ characters); unset: generated once and kept in the database. Secret; replicas: same value.',
  SIGIL_X402_DOMAIN_TAG: 'The `<domain_tag>` of x402 reference strings; default: the host of SIGIL_PUBLIC_URL.',
  SIGIL_X402_IP_LIMIT_PER_MINUTE: 'Keyless x402 requests one client address may make per minute.',
  DATABASE_URL:
    '`postgres://…` (required for more than one replica) or `sqlite:<file>`; unset: the SQLite file `data/sigil.sqlite`.',
};

/** The variables' rules, for the generated documentation (config-table.ts). */
export const ENV_RULES: Readonly<Record<keyof typeof ENV, z.ZodType>> = ENV;

/** The service's version, from server/package.json. */
export const SERVICE_VERSION: string = JSON.parse(
  readFileSync(new URL('../../package.json', import.meta.url), 'utf8'),
).version;

/** The one partner domain on the default sign-in allowlist (SIGIL_SIGNIN_DOMAINS replaces the whole list). */
export const DEFAULT_PARTNER_SIGNIN_DOMAIN = 'app.sigil-partner.dev';

const envSchema = z.object(ENV);
type Env = z.output<typeof envSchema>;

/** A configuration value that does not pass; `variable` names the environment variable. */
export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    readonly reason: string,
  ) {
    super(`invalid configuration: ${variable} ${reason}`);
    this.name = 'ConfigError';
  }
}

function toConfig(env: Env) {
  const port = env.PORT;
  const publicUrl = (
    env.SIGIL_PUBLIC_URL ?? `http://${env.HOST.includes(':') ? `[${env.HOST}]` : env.HOST}:${port}`
  ).replace(/\/+$/, '');
  return {
    port,
    host: env.HOST,
    nodeEnv: env.NODE_ENV,
    logLevel: env.LOG_LEVEL,
    /** The base URL clients see (docs, examples, audiences). Defaults to the listen address. */
    publicUrl,
    /** The developer portal, linked from the index at `GET /` when set. */
    portalUrl: env.SIGIL_PORTAL_URL?.replace(/\/+$/, ''),
    rpcUrl: env.SIGIL_RPC_URL,
    rpcTimeoutMs: env.SIGIL_RPC_TIMEOUT_MS,
    /** Longest a client may take to send one whole request (headers and body): 408 and close after. */
    requestTimeoutMs: env.SIGIL_REQUEST_TIMEOUT_MS,
    /** The budget all chain reads of one request share, on top of each call's own timeout. */
    requestDeadlineMs: env.SIGIL_REQUEST_DEADLINE_MS,
    /** After SIGTERM: how long the replica keeps serving with /ready at 503 before it closes the listener. */
    drainMs: env.SIGIL_DRAIN_MS,
    programId: env.SIGIL_PROGRAM_ID,
    chainName: env.SIGIL_CHAIN_NAME,
    domainSuffixes: env.SIGIL_DOMAIN_SUFFIXES as readonly string[],
    resolveCacheMs: env.SIGIL_RESOLVE_CACHE_MS,
    solRpcUrl: env.SIGIL_SOL_RPC_URL,
    ethRpcUrl: env.SIGIL_ETH_RPC_URL,
    network: env.SIGIL_NETWORK,
    ipfsGateway: env.SIGIL_IPFS_GATEWAY,
    /** Local development and tests only (refused when NODE_ENV=production): outbound requests may reach loopback. */
    outboundAllowLoopback: env.SIGIL_OUTBOUND_ALLOW_LOOPBACK,
    /** Local development and tests only (refused when NODE_ENV=production): the CA PEM outbound requests trust. */
    outboundCa: env.SIGIL_OUTBOUND_CA_FILE,
    /** Pay webhooks routes, indexer pass and deliveries (SIGIL_PAY_WEBHOOKS, default on). */
    payWebhooks: env.SIGIL_PAY_WEBHOOKS,
    /** Identity webhooks routes and deliveries (SIGIL_IDENTITY_WEBHOOKS, default on). */
    identityWebhooks: env.SIGIL_IDENTITY_WEBHOOKS,
    /** Days the identity-change log keeps an event (SIGIL_IDENTITY_RETENTION_DAYS, default 90). */
    identityRetentionDays: env.SIGIL_IDENTITY_RETENTION_DAYS,
    /** Where the identity log starts on its first run (SIGIL_IDENTITY_BACKFILL_SLOT, default 0). */
    identityBackfillSlot: env.SIGIL_IDENTITY_BACKFILL_SLOT,
    /** The chain source of the indexer (SIGIL_CHAIN_SOURCE, default `blocks`; docs/deploy.md "Chain source"). */
    chainSource: env.SIGIL_CHAIN_SOURCE,
    /** The Geyser endpoint and its x-token when chainSource is `yellowstone`. */
    yellowstone: { url: env.SIGIL_YELLOWSTONE_URL, token: env.SIGIL_YELLOWSTONE_TOKEN },
    /** Pause between handle index passes (SIGIL_HANDLE_INDEX_INTERVAL_MS); 0: the worker does not start. */
    handleIndexIntervalMs: env.SIGIL_HANDLE_INDEX_INTERVAL_MS,
    portalDomain: env.SIGIL_PORTAL_DOMAIN,
    portalKey: env.SIGIL_PORTAL_KEY || undefined,
    /** Default: the portal domain and the one partner domain (docs/connect.md). */
    signinDomains: (env.SIGIL_SIGNIN_DOMAINS ?? [
      env.SIGIL_PORTAL_DOMAIN,
      DEFAULT_PARTNER_SIGNIN_DOMAIN,
    ]) as readonly string[],
    /** Gate's Ed25519 seed (base64url); undefined: generated in the db outside production, signing off in production. */
    gateSigningKey: env.SIGIL_GATE_SIGNING_KEY || undefined,
    challengeTtlSeconds: env.SIGIL_CHALLENGE_TTL_SECONDS,
    sessionTtlSeconds: env.SIGIL_SESSION_TTL_SECONDS,
    oidcPageLimitPerMinute: env.SIGIL_OIDC_PAGE_LIMIT_PER_MINUTE,
    /** `postgres://…` or `sqlite:<file>`; undefined means the default SQLite file (platform/db). */
    databaseUrl: env.DATABASE_URL || undefined,
    /** POST /privy/wallet: the Privy app and its verification key (PEM); undefined when either is unset (501). */
    privy:
      env.SIGIL_PRIVY_APP_ID && env.SIGIL_PRIVY_VERIFICATION_KEY
        ? { appId: env.SIGIL_PRIVY_APP_ID, verificationKey: env.SIGIL_PRIVY_VERIFICATION_KEY.replaceAll('\\n', '\n') }
        : undefined,
    /** Pay-per-call; undefined when SIGIL_X402_PAY_TO is unset (x402 off: keyless metered calls get API_KEY_REQUIRED). */
    x402: env.SIGIL_X402_PAY_TO ? x402Settings(env, publicUrl) : undefined,
  };
}

/** Price classes of metered procedures (trpc/procedures.ts METERED_PROCEDURES maps each procedure to one). */
export type PriceClass = 'resolve' | 'reverse' | 'verify' | 'gate';

export interface X402Settings {
  payTo: string;
  /** The mint payments must transfer. */
  asset: string;
  /** SPL Token for the wrapped-native default; otherwise the transfer's own program is used (docs/x402.md). */
  tokenProgram?: string;
  prices: Readonly<Record<PriceClass, bigint>>;
  nonceSecret?: string;
  domainTag: string;
  ipLimitPerMinute: number;
  /**
   * The facilitator rail (SIGIL_X402_FACILITATOR_URL); absent: the native rail only. `publicUrl` (SIGIL_PUBLIC_URL,
   * no trailing slash) names the paid resource in its challenge entries.
   */
  facilitator?: { url: string; timeoutMs: number; publicUrl: string };
}

function x402Settings(env: Env, publicUrl: string): X402Settings {
  return {
    payTo: env.SIGIL_X402_PAY_TO!,
    asset: env.SIGIL_X402_ASSET,
    tokenProgram: env.SIGIL_X402_ASSET === WRAPPED_NATIVE_MINT ? TOKEN_PROGRAM_ADDRESS : undefined,
    prices: Object.freeze({
      resolve: env.SIGIL_X402_PRICE_RESOLVE,
      reverse: env.SIGIL_X402_PRICE_REVERSE,
      verify: env.SIGIL_X402_PRICE_VERIFY,
      gate: env.SIGIL_X402_PRICE_GATE,
    }),
    nonceSecret: env.SIGIL_X402_NONCE_SECRET || undefined,
    domainTag: env.SIGIL_X402_DOMAIN_TAG ?? new URL(publicUrl).host,
    ipLimitPerMinute: env.SIGIL_X402_IP_LIMIT_PER_MINUTE,
    facilitator: env.SIGIL_X402_FACILITATOR_URL
      ? {
          url: env.SIGIL_X402_FACILITATOR_URL.replace(/\/+$/, ''),
          timeoutMs: env.SIGIL_X402_FACILITATOR_TIMEOUT_MS,
          publicUrl: publicUrl.replace(/\/+$/, ''),
        }
      : undefined,
  };
}

export type Config = Readonly<ReturnType<typeof toConfig>>;

/** The named variables that are set: an empty or blank value counts as unset, so `FOO= cmd` is like no FOO. */
export function presentVariables(
  env: Record<string, string | undefined>,
  names: readonly string[],
): Record<string, string> {
  const input: Record<string, string> = {};
  for (const name of names) {
    const value = env[name];
    if (value !== undefined && value.trim() !== '') input[name] = value;
  }
  return input;
}

/**
 * Pure: validates `env` (e.g. process.env) and returns the configuration. Throws ConfigError naming the first bad
 * variable. Empty strings count as unset, so `FOO= cmd` behaves like not setting FOO.
 */
export function loadConfig(env: Record<string, string | undefined>): Config {
  const input = presentVariables(env, Object.keys(ENV));
  const parsed = envSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const variable = String(issue.path[0] ?? 'environment');
    const got = input[variable];
    throw new ConfigError(
      variable,
      `${issue.message}${got === undefined ? '' : ` (got ${JSON.stringify(got.slice(0, 80))})`}`,
    );
  }
  // Loopback receivers are a local-testing convenience; in production they would be an SSRF hole.
  if (parsed.data.SIGIL_OUTBOUND_ALLOW_LOOPBACK && parsed.data.NODE_ENV === 'production') {
    throw new ConfigError(
      'SIGIL_OUTBOUND_ALLOW_LOOPBACK',
      'must not be set when NODE_ENV=production (local development and tests only)',
    );
  }
  // A private CA would let whoever holds its key impersonate any manifest host or webhook receiver.
  if (parsed.data.SIGIL_OUTBOUND_CA_FILE !== undefined && parsed.data.NODE_ENV === 'production') {
    throw new ConfigError(
      'SIGIL_OUTBOUND_CA_FILE',
      'must not be set when NODE_ENV=production (local development and tests only)',
    );
  }
  if (parsed.data.SIGIL_CHAIN_SOURCE === 'yellowstone' && parsed.data.SIGIL_YELLOWSTONE_URL === undefined)
    throw new ConfigError('SIGIL_YELLOWSTONE_URL', 'is required when SIGIL_CHAIN_SOURCE=yellowstone');
  // Half a Privy setup would answer 501 while the operator believes it on: refuse it at start instead.
  if ((parsed.data.SIGIL_PRIVY_APP_ID === undefined) !== (parsed.data.SIGIL_PRIVY_VERIFICATION_KEY === undefined)) {
    const missing =
      parsed.data.SIGIL_PRIVY_APP_ID === undefined ? 'SIGIL_PRIVY_APP_ID' : 'SIGIL_PRIVY_VERIFICATION_KEY';
    throw new ConfigError(missing, 'is required when the other Privy variable is set');
  }
  return Object.freeze(toConfig(parsed.data));
}

/** A syntactically valid program id for tests that never touch a chain. */
export const TEST_PROGRAM_ID = '8mX76L5CgmVY1Eks7ucFupmhRy1YraFpmUpeiEcj6dJF';

/** A test/dev helper: defaults plus overrides, validated like the real thing. */
export function testConfig(overrides: Record<string, string | undefined> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    PORT: '0',
    SIGIL_RPC_URL: 'http://127.0.0.1:8899',
    SIGIL_PROGRAM_ID: TEST_PROGRAM_ID,
    ...overrides,
  });
}

/**
 * Rails accepted for x402 payment: the native rail when x402 is configured (SIGIL_X402_PAY_TO), and the facilitator
 * rail beside it when SIGIL_X402_FACILITATOR_URL is set; none without x402.
 */
export function paymentRails(config: Config): string[] {
  if (!config.x402) return [];
  const rails = [`${config.chainName}-native`];
  if (config.x402.facilitator) rails.push(`${config.chainName}-facilitator`);
  return rails;
}
