/**
 * Pay webhooks over real HTTP: the keyed app with loopback HTTPS receivers allowed (their self-signed CA trusted),
 * scenario wallets as signers, registration through the two public routes, and the app's own workers.
 *
 *   const env = await startWebhookApp({ chain });
 *   const hook = await registerOverHttp(env.app, env.app.key.secret, { scope: '@alice', url }, alice);
 *   const workers = env.startWorkers();
 */
import { base58 } from '@scure/base';
import { createKeyPairSignerFromBytes, type KeyPairSigner } from '@solana/kit';
import { expect } from 'vitest';
import type { Dialect } from '../../server/src/platform/db/index';
import type { LocalChain } from '../../server/src/localchain/index';
import type { Logger } from '../../server/src/platform/log';
import type { Resolver } from '../../server/src/platform/outbound/destination-policy';
import { selfSignedCert } from './https-receiver';
import { startPayWebhookWorkers, type PayWebhookWorkers } from '../../server/src/workers/pay-webhooks';
import { signEnvelope, signRaw } from './webhooks-world';
import { startKeyedApp, type KeyedApp, type KeyedResponse } from './keyed-app';

/** Public-looking test hosts resolve to a public address; everything else does not resolve. */
export const TEST_PUBLIC_IP = '93.184.216.34';
export const testResolver: Resolver = async (host) => {
  if (host.endsWith('.example.com')) return [{ address: TEST_PUBLIC_IP, family: 4 }];
  if (host === 'mixed.example.net')
    return [
      { address: TEST_PUBLIC_IP, family: 4 },
      { address: '10.0.0.7', family: 4 },
    ];
  return [];
};

export interface WebhookApp {
  app: KeyedApp;
  /**
   * Starts the indexer and delivery workers on the app's db, chain reader and outbound client (fast polling);
   * `log`: where the workers report faults (a failed pass, a lost delivery), none by default.
   */
  startWorkers(options?: { intervalMs?: number; log?: Logger }): PayWebhookWorkers;
  close(): Promise<void>;
}

export async function startWebhookApp(options: {
  chain: LocalChain;
  dialect?: Dialect;
  /** Default true: deliveries may go to loopback receivers (SIGIL_OUTBOUND_ALLOW_LOOPBACK). */
  allowLoopback?: boolean;
  env?: Record<string, string>;
}): Promise<WebhookApp> {
  const app = await startKeyedApp({
    dialect: options.dialect ?? 'sqlite',
    chain: options.chain,
    env: { SIGIL_OUTBOUND_ALLOW_LOOPBACK: String(options.allowLoopback ?? true), ...options.env },
    outboundOptions: { ca: selfSignedCert().cert, resolver: testResolver },
  });
  const workers: PayWebhookWorkers[] = [];
  return {
    app,
    startWorkers({ intervalMs = 100, log } = {}) {
      const services = app.app.services;
      const started = startPayWebhookWorkers({
        db: app.database.db,
        chain: services.chain,
        client: services.outbound,
        queued: services.payWebhooks?.queued,
        ingest: services.ingest,
        indexer: { intervalMs },
        delivery: { intervalMs },
        log,
      });
      workers.push(started);
      return started;
    },
    async close() {
      for (const w of workers) await w.stop();
      await app.app.services.outbound.close();
      await app.close();
    },
  };
}

/** A scenario wallet as a signer (local demo keys). */
export function scenarioSigner(chain: LocalChain, name: string): Promise<KeyPairSigner> {
  const wallet = chain.scenario?.wallets[name];
  if (!wallet) throw new Error(`no scenario wallet ${name}`);
  return createKeyPairSignerFromBytes(base58.decode(wallet.secretKey));
}

const show = (res: KeyedResponse) => `${res.status} ${res.text}`;

/** challenge → sign (raw, or the off-chain envelope) → register, over HTTP; asserts the 200 and the 201. */
export async function registerOverHttp(
  app: KeyedApp,
  key: string,
  body: { scope: string; url: string; wallet?: string; event_types?: string[]; description?: string },
  signer: KeyPairSigner,
  { envelope = false } = {},
): Promise<{ id: string; secret: string; webhook: any }> {
  const challenge = await app.call('POST', '/v1/pay/webhooks/challenge', { key, body });
  expect(challenge.status, show(challenge)).toBe(200);
  const signature = envelope
    ? await signEnvelope(signer, challenge.body.message)
    : await signRaw(signer, challenge.body.message);
  const created = await app.call('POST', '/v1/pay/webhooks', { key, body: { nonce: challenge.body.nonce, signature } });
  expect(created.status, show(created)).toBe(201);
  return { id: created.body.id, secret: created.body.secret, webhook: created.body };
}

/** Polls `check` every 50 ms until it returns a value (not undefined) or `timeoutMs` passes. */
export async function waitFor<T>(
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 20_000,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
