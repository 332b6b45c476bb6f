// Tests only: what the keyed replay suites (server/src/platform/http/keyed-replay.*.test.ts) observe of a keyed app:
// every key step the gate takes and every run of the keyed resolve procedure, counted by wrapping the services the
// procedures and the replay path call through.
import type { KeyedApp } from './keyed-app';

export interface KeyedProbe {
  /** The secret of every KeyGate.admit call, in order. */
  admits: string[];
  /** The name of every universal.resolve call (the GET /v1/resolve/{name} procedure), in order. */
  resolves: string[];
  /** Called once the gate answered, before the caller sees the answer (e.g. to begin a drain meanwhile). */
  onAdmitted?: (secret: string) => void;
}

export function instrumentKeyedApp(app: KeyedApp): KeyedProbe {
  const probe: KeyedProbe = { admits: [], resolves: [] };
  const { keyGate, universal } = app.app.services;
  const admit = keyGate.admit.bind(keyGate);
  keyGate.admit = (secret, cost, log) => {
    probe.admits.push(secret);
    return admit(secret, cost, log).then((admission) => {
      probe.onAdmitted?.(secret);
      return admission;
    });
  };
  const resolve = universal.resolve.bind(universal);
  universal.resolve = (name, replay) => {
    probe.resolves.push(name);
    return resolve(name, replay);
  };
  return probe;
}

/** A keyed GET as raw bytes, with a fixed request id; `extra`: more header lines. */
export const keyedGet = (path: string, key: string | undefined, requestId: string, extra = '') =>
  `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Request-Id: ${requestId}\r\n` +
  (key === undefined ? '' : `X-API-Key: ${key}\r\n`) +
  `${extra}\r\n`;
