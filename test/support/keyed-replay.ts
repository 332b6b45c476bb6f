// Tests only: what the keyed replay suites (server/src/platform/http/keyed-replay.*.test.ts) observe of a keyed app:
// every key step the gate takes, every run of the keyed resolve procedure and every request recorded in the usage
// history, counted by wrapping the services the procedures, the hooks and the replay path call through.
import { randomBytes } from 'node:crypto';
import { base58 } from '@scure/base';
import type { WindowCounts } from '@sigil/contract/keys';
import { afterAll, beforeAll, expect } from 'vitest';
import { startKeyedApp, type KeyedApp } from './keyed-app';
import { createKey, type ApiKey } from '../../server/src/features/keys/service';
import { readUsage } from '../../server/src/features/ratelimit/service';

export interface KeyedProbe {
  /** The secret of every KeyGate.admit call, in order. */
  admits: string[];
  /** The name of every universal.resolve call (the GET /v1/resolve/{name} procedure), in order. */
  resolves: string[];
  /** The request id of every request recorded in the usage history (recordResponse), in order. */
  recorded: string[];
  /**
   * Called once the gate answered, before the caller sees the answer (e.g. to begin a drain meanwhile); the caller
   * sees it once what this returns settles (e.g. to hold the key step while the client goes away).
   */
  onAdmitted?: (secret: string) => void | Promise<void>;
}

export function instrumentKeyedApp(app: KeyedApp): KeyedProbe {
  const probe: KeyedProbe = { admits: [], resolves: [], recorded: [] };
  const { keyGate, universal, usageHistory } = app.app.services;
  const admit = keyGate.admit.bind(keyGate);
  keyGate.admit = (secret, cost, log) => {
    probe.admits.push(secret);
    return admit(secret, cost, log).then(async (admission) => {
      await probe.onAdmitted?.(secret);
      return admission;
    });
  };
  const resolve = universal.resolve.bind(universal);
  universal.resolve = (name, replay) => {
    probe.resolves.push(name);
    return resolve(name, replay);
  };
  const recordResponse = usageHistory.recordResponse.bind(usageHistory);
  usageHistory.recordResponse = (mark, status, answered) => {
    probe.recorded.push(answered.requestId);
    recordResponse(mark, status, answered);
  };
  return probe;
}

/** A keyed GET as raw bytes, with a fixed request id; `extra`: more header lines. */
export const keyedGet = (path: string, key: string | undefined, requestId: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${requestId}\r\n` +
  (key === undefined ? '' : `X-API-Key: ${key}\r\n`) +
  `${extra}\r\n`;

/** A free key of a new account, not used yet: its rate-limit windows and its usage history start empty. */
export async function freshKey(app: KeyedApp, name: string): Promise<{ key: ApiKey; secret: string }> {
  return createKey(app.database.db, { account: base58.encode(randomBytes(32)), name });
}

/** What the key step counted for a key in its current windows (undefined: nothing). */
export async function rateCounts(app: KeyedApp, keyId: string): Promise<WindowCounts | undefined> {
  return (await readUsage(app.database.db, [keyId])).get(keyId);
}

/**
 * One test file's keyed app for the replay tests: SQLite, the resolve cache on, request logging off (replays may
 * bypass Fastify), instrumented; with `keptAnswer`, a keyed answer of /v1/resolve/alice is kept for the whole file.
 */
export function useKeyedReplayApp(options: { keptAnswer?: boolean } = {}): {
  readonly app: KeyedApp;
  readonly probe: KeyedProbe;
} {
  let app: KeyedApp | undefined;
  let probe: KeyedProbe | undefined;
  beforeAll(async () => {
    app = await startKeyedApp({ dialect: 'sqlite', env: { SIGIL_RESOLVE_CACHE_MS: '60000', LOG_LEVEL: 'warn' } });
    probe = instrumentKeyedApp(app);
    if (options.keptAnswer)
      expect((await app.call('GET', '/v1/resolve/alice', { key: app.portal.secret })).status).toBe(200);
  });
  afterAll(async () => {
    await app?.close();
  });
  return {
    get app() {
      if (!app) throw new Error('the keyed app exists only inside tests and hooks');
      return app;
    },
    get probe() {
      if (!probe) throw new Error('the keyed app exists only inside tests and hooks');
      return probe;
    },
  };
}
