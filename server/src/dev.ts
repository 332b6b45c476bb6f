// `npm start`: the whole service on its embedded defaults — the local chain (loopback, seeded demo scenario) and
// the service on a SQLite file under data/. Variables already set in the environment win over these defaults.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { delimiter, dirname, join, relative } from 'node:path';
import type { Address } from '@solana/kit';
import { fileURLToPath } from 'node:url';
import {
  DEFAULT_AGENT_HOST_PORT,
  DEFAULT_GEYSER_PORT,
  DEFAULT_LOCAL_CHAIN_PORT,
  SOLANA_DEVNET_GENESIS_HASH,
  startLocalChain,
} from './localchain/index';
import { DEFAULT_LOCAL_FACILITATOR_PORT, startLocalFacilitatorRail } from './localchain/facilitator';
import { DEFAULT_PARTNER_SIGNIN_DOMAIN } from './platform/config';
import { resolveDatabaseTarget } from './platform/db/index';
import { main } from './main';
import { DEFAULT_WEBHOOK_INBOX_PORT, startWebhookInbox, type WebhookInbox } from './localchain/webhook-inbox';

const chainPort = Number(process.env.SIGIL_LOCALCHAIN_PORT ?? DEFAULT_LOCAL_CHAIN_PORT);
// The demo agent host's port is fixed (the scenario's manifest URLs name it); SIGIL_AGENT_HOST_PORT moves it.
const agentHostPort = Number(process.env.SIGIL_AGENT_HOST_PORT ?? DEFAULT_AGENT_HOST_PORT);
const geyserPort = Number(process.env.SIGIL_LOCALCHAIN_GEYSER_PORT ?? DEFAULT_GEYSER_PORT);
// SIGIL_LOCAL_FACILITATOR=true: the x402 facilitator rail on the local chain. The chain then presents devnet's
// genesis hash (stock x402 clients accept only Solana's own network ids) and a local facilitator is started.
const localFacilitator = process.env.SIGIL_LOCAL_FACILITATOR === 'true';
const chain = await startLocalChain({
  port: chainPort,
  agentHostPort,
  geyserPort,
  genesisHash: localFacilitator ? SOLANA_DEVNET_GENESIS_HASH : undefined,
}).catch((err: Error) => {
  process.stderr.write(
    `sigil: cannot start the local chain on 127.0.0.1:${chainPort}: ${err.message}\n` +
      `       (set SIGIL_LOCALCHAIN_PORT, SIGIL_AGENT_HOST_PORT or SIGIL_LOCALCHAIN_GEYSER_PORT to another port)\n`,
  );
  process.exit(1);
});

const facilitatorPort = Number(process.env.SIGIL_LOCAL_FACILITATOR_PORT ?? DEFAULT_LOCAL_FACILITATOR_PORT);
const rail = localFacilitator
  ? await startLocalFacilitatorRail(chain, {
      port: facilitatorPort,
      payTo: (process.env.SIGIL_X402_PAY_TO || undefined) as Address | undefined,
    }).catch((err: Error) => {
      process.stderr.write(
        `sigil: cannot start the local x402 facilitator on 127.0.0.1:${facilitatorPort}: ${err.message}\n` +
          `       (set SIGIL_LOCAL_FACILITATOR_PORT to another port)\n`,
      );
      process.exit(1);
    })
  : null;
if (rail) {
  process.env.SIGIL_X402_PAY_TO ||= rail.payTo;
  process.env.SIGIL_X402_ASSET ||= rail.asset;
  process.env.SIGIL_X402_FACILITATOR_URL ||= rail.facilitator.url;
}

process.env.SIGIL_RPC_URL ??= chain.url;
process.env.SIGIL_PROGRAM_ID ??= chain.programId;
// The Yellowstone chain source, when chosen, reads the local chain's Geyser endpoint.
if (process.env.SIGIL_CHAIN_SOURCE === 'yellowstone') process.env.SIGIL_YELLOWSTONE_URL ??= chain.geyserUrl;
process.env.LOG_LEVEL ??= 'warn';
// No balancer in front locally: Ctrl-C stops at once.
process.env.SIGIL_DRAIN_MS ??= '0';
// Local only: agent manifests and webhooks may go to loopback HTTPS receivers (refused when NODE_ENV=production).
if (process.env.NODE_ENV !== 'production') process.env.SIGIL_OUTBOUND_ALLOW_LOOPBACK ??= 'true';
// Local only: trust the demo CA too (the demo agent host's manifests and x402 endpoints), beside the system store and
// any CA files the developer listed in SIGIL_OUTBOUND_CA_FILE (their own local receiver's): never instead of them.
if (process.env.NODE_ENV !== 'production' && chain.agentHost)
  process.env.SIGIL_OUTBOUND_CA_FILE = [process.env.SIGIL_OUTBOUND_CA_FILE, chain.agentHost.caFile]
    .filter(Boolean)
    .join(delimiter);

/** The developer portal (web-portal/) runs next to the service under npm start; SIGIL_PORTAL_PORT moves it. */
const portalPort = Number(process.env.SIGIL_PORTAL_PORT ?? 3000);
// Sign-In With Solana names the page's host: allow the local portal's, next to the defaults.
process.env.SIGIL_SIGNIN_DOMAINS ??= [
  process.env.SIGIL_PORTAL_DOMAIN ?? 'portal.sigil.local',
  DEFAULT_PARTNER_SIGNIN_DOMAIN,
  `127.0.0.1:${portalPort}`,
  `localhost:${portalPort}`,
].join(',');

// The portal key's secret is kept in the data directory (beside the SQLite file; data/ for Postgres), as the service
// keeps its signing keys in that database: so the key printed on the first start still works after a restart. Read
// back, it is handed to main as SIGIL_PORTAL_KEY, which makes the key's row hold that secret (docs/keys.md).
const dbTarget = resolveDatabaseTarget({ url: process.env.DATABASE_URL });
const portalKeyFile = join(
  dbTarget.dialect === 'sqlite' && dbTarget.file !== ':memory:'
    ? dirname(dbTarget.file)
    : fileURLToPath(new URL('../../data/', import.meta.url)),
  'portal-key',
);
if (!process.env.SIGIL_PORTAL_KEY && existsSync(portalKeyFile))
  process.env.SIGIL_PORTAL_KEY = readFileSync(portalKeyFile, 'utf8').trim() || undefined;

process.env.SIGIL_PORTAL_URL ??= `http://127.0.0.1:${portalPort}`;
const inbox = process.env.NODE_ENV === 'production' ? null : await startInbox();
const started = await main();
// The service logs at warn here, so its own "stopped" line is not shown: say it (stdout is synchronous at exit).
process.on('exit', (code) => {
  process.stdout.write(code === 0 ? '\nSigil stopped.\n' : `\nSigil stopped (exit code ${code}).\n`);
});

/** The id of the MCP process's query-API key under npm start. */
const MCP_QUERY_KEY_ID = 'mcp.sigil.local';

const base = (
  process.env.SIGIL_PUBLIC_URL ?? `http://${process.env.HOST ?? '127.0.0.1'}:${process.env.PORT ?? 8787}`
).replace(/\/+$/, '');
// The MCP process searches handles through this service's query API with a key of its own: a partner key whose id
// is a fixed local name, its secret replaced at every start (so starts never pile up keys).
const mcpQueryKey = await started.services.keys.ensurePortalKey({ domain: MCP_QUERY_KEY_ID, rotate: true });
const mcpUrl = await startMcpProcess(mcpQueryKey.generatedSecret ?? undefined);
// The portal gets the portal key's secret: SIGIL_PORTAL_KEY, else the one this start generated, else a fresh one (the
// service keeps only hashes; sessions are bound to the key's id, not its secret, so replacing it signs no one out).
const portalSecret =
  process.env.SIGIL_PORTAL_KEY ??
  started.generatedPortalSecret ??
  (await started.services.keys.ensurePortalKey({ domain: started.portalDomain, rotate: true })).generatedSecret!;
if (!existsSync(portalKeyFile) || readFileSync(portalKeyFile, 'utf8').trim() !== portalSecret) {
  mkdirSync(dirname(portalKeyFile), { recursive: true });
  writeFileSync(portalKeyFile, `${portalSecret}\n`, { mode: 0o600 });
}
/** The kept key's file as the banner names it: relative when under the current folder (data/portal-key). */
const portalKeyPath = relative(process.cwd(), portalKeyFile).startsWith('..')
  ? portalKeyFile
  : relative(process.cwd(), portalKeyFile);
const portalUrl = await startPortalProcess(portalSecret);
const cases = chain.scenario?.cases ?? {};
const reverse = chain.scenario?.reverse ?? {};
process.stdout.write(
  [
    '',
    `Sigil is running at ${base}`,
    `  API docs:       ${base}/docs   (OpenAPI: ${base}/openapi.json)`,
    `  Local chain:    ${chain.url}   (demo scenario: ${chain.url}/scenario)`,
    `  Geyser (gRPC):  ${chain.geyserUrl}   (Yellowstone-compatible block stream of the local chain)`,
    `  Portal:         ${portalUrl ?? 'did not start (see its log lines above)'}`,
    `  MCP server:     ${mcpUrl ?? 'did not start (see its log lines above)'}`,
    `  Agent host:     ${chain.agentHost?.origin ?? '(off)'}   (demo agent manifests and x402 endpoints)`,
    `  Webhook inbox:  ${inbox ? `${inbox.url}/<any path>` : '(off)'}   (shows and verifies deliveries; ` +
      'npm run webhooks:forward -- http://localhost:4000/hook; portal page /inbox)',
    `  Market (demo):  ${marketLine(chain.scenario?.market ?? {})}`,
    ...(rail
      ? [
          `  x402:           facilitator ${rail.facilitator.url}   (pay-to ${process.env.SIGIL_X402_PAY_TO}, ` +
            `asset ${process.env.SIGIL_X402_ASSET})`,
        ]
      : []),
    '',
    `Portal API key (${started.portalDomain}): ${portalSecret}   (kept in ${portalKeyPath})`,
    '',
    'Try:',
    ...tryLines(base, portalKeyPath, cases, reverse),
    '',
    'Stop with Ctrl-C.',
    '',
  ].join('\n'),
);

/**
 * The banner's curl lines, the same as the README's "What `npm start` gives you": each one pastes into bash as it
 * is (the key is read from its file, the expected answer is a comment).
 */
function tryLines(
  base: string,
  keyFile: string,
  cases: Record<string, string | undefined>,
  reverse: Record<string, string | undefined>,
): string[] {
  return [
    `  curl -s ${base}/resolve/@${cases.plainWithPrimary ?? 'alice'}`,
    `  curl -s ${base}/reverse/${reverse.plainWithPrimary ?? ''}`,
    `  curl -s ${base}/resolve/${cases.domainX1 ?? 'satoshi.x1'}`,
    // The keyed reverse names the failed trust rule; the scenario has a wallet for each (docs/reverse.md).
    `  curl -s -H "X-API-Key: $(cat ${keyFile})" ${base}/v1/reverse/${reverse.primaryHandleReleased ?? ''}` +
      '   # trust: handle-missing',
  ];
}

/**
 * The local webhook inbox (localchain/webhook-inbox.ts), on SIGIL_WEBHOOK_INBOX_PORT; its address and CA file go to
 * data/webhook-inbox.json (SIGIL_WEBHOOK_INBOX_FILE) for `npm run webhooks:forward`. Null when its port is taken.
 */
async function startInbox(): Promise<WebhookInbox | null> {
  const port = Number(process.env.SIGIL_WEBHOOK_INBOX_PORT ?? DEFAULT_WEBHOOK_INBOX_PORT);
  const secrets = (process.env.SIGIL_WEBHOOK_INBOX_SECRETS ?? '').split(',').filter(Boolean);
  const started = await startWebhookInbox({ port, secrets, log: (line) => process.stdout.write(`${line}\n`) }).catch(
    (err: Error) => {
      process.stderr.write(`sigil: the webhook inbox did not start on 127.0.0.1:${port}: ${err.message}\n`);
      return null;
    },
  );
  if (!started) return null;
  const file =
    process.env.SIGIL_WEBHOOK_INBOX_FILE ?? fileURLToPath(new URL('../../data/webhook-inbox.json', import.meta.url));
  // The portal's inbox page (web-portal/app/inbox) reads the same file.
  process.env.SIGIL_WEBHOOK_INBOX_FILE = file;
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify({ url: started.url, caFile: started.caFile }) + '\n');
  process.on('exit', () => rmSync(file, { force: true }));
  return started;
}

/** One handle per market state, as the demo scenario seeded them (`market` in /scenario). */
function marketLine(market: Record<string, { handle: string }>): string {
  const states = Object.entries(market).map(([state, { handle }]) => `${state} @${handle}`);
  return states.length > 0 ? states.join(' · ') : '(no scenario)';
}

/**
 * The MCP tool server is a process of its own (server/src/mcp/main.ts), as in production: started next to the
 * service on loopback, pointed at it and at the same chain, stopped when this process exits. Resolves to its URL once
 * it answers, or null when it did not come up.
 */
async function startMcpProcess(queryApiKey: string | undefined): Promise<string | null> {
  const bind = process.env.MCP_BIND ?? '127.0.0.1:8696';
  const child = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./mcp/main.ts', import.meta.url))], {
    stdio: ['ignore', 'inherit', 'inherit'],
    env: {
      ...process.env,
      MCP_BIND: bind,
      SIGIL_API_URL: process.env.SIGIL_API_URL ?? base,
      SIGIL_QUERY_API_URL: process.env.SIGIL_QUERY_API_URL ?? base,
      ...(queryApiKey ? { SIGIL_QUERY_API_KEY: process.env.SIGIL_QUERY_API_KEY ?? queryApiKey } : {}),
    },
  });
  process.on('exit', () => child.kill('SIGTERM'));
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://${bind}/mcp`;
  // Up once GET /mcp answers (405: the stateless server has no GET stream).
  for (let i = 0; i < 100 && !exited; i++) {
    const status = await fetch(url).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 405) return url;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/** The portal's environment: this service, the portal key, no telemetry; NODE_ENV is next's to choose. */
function portalEnv(portalKey: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NEXT_TELEMETRY_DISABLED: '1',
    SIGIL_API_URL: base,
    SIGIL_PORTAL_KEY: portalKey,
  };
  delete env.NODE_ENV;
  return env;
}

/**
 * The developer portal: `next dev` in web-portal/ on 127.0.0.1, pointed at this service with the portal key, stopped
 * when this process exits. Resolves to its URL once it listens, or null when it did not come up.
 */
async function startPortalProcess(portalKey: string): Promise<string | null> {
  const next = fileURLToPath(new URL('../../node_modules/.bin/next', import.meta.url));
  const child = spawn(next, ['dev', '--hostname', '127.0.0.1', '--port', String(portalPort)], {
    cwd: fileURLToPath(new URL('../../web-portal/', import.meta.url)),
    stdio: ['ignore', 'ignore', 'inherit'],
    env: portalEnv(portalKey),
  });
  process.on('exit', () => child.kill('SIGTERM'));
  let exited = false;
  child.once('exit', () => (exited = true));
  const url = `http://127.0.0.1:${portalPort}`;
  // Up once the port accepts connections (next dev compiles a page on its first request, so no page is asked for).
  for (let i = 0; i < 300 && !exited; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(portalPort, '127.0.0.1');
      socket.once('connect', () => {
        socket.destroy();
        resolve(true);
      });
      socket.once('error', () => resolve(false));
    });
    if (up) return url;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}
