// The outbound client's security rules: vetted-and-pinned connections, IP literals judged before dispatch,
// rebinding names, bodies never read, and the local-only loopback setting.
import { createRequire } from 'node:module';
import type { LookupAddress } from 'node:dns';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createOutboundClient, OutboundError } from './client';
import type { Resolver } from './destination-policy';
import { loopbackTestClient, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { rejection } from '@sigil/test/support/failures';

// Instrument node's tls.connect (the function undici calls) to record what our vetted lookup hands to the
// socket — that is the address the connection goes to. Answers that are not loopback are recorded and then
// refused with ECONNREFUSED, so that no test ever leaves this machine.
const tls = createRequire(import.meta.url)('node:tls') as typeof import('node:tls');
const originalConnect = tls.connect;
const socketAnswers: string[][] = [];
let tlsConnects = 0;

type Cb = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

beforeAll(() => {
  (tls as { connect: unknown }).connect = function instrumented(this: unknown, ...args: unknown[]) {
    tlsConnects++;
    const options = args[0] as { lookup?: (h: string, o: { all?: boolean }, cb: Cb) => void };
    const vetted = options.lookup;
    if (vetted) {
      options.lookup = (host, opts, cb) =>
        vetted(host, opts, (err, address, family) => {
          if (err) return cb(err, address, family);
          const list = Array.isArray(address) ? address.map((a) => a.address) : [address];
          socketAnswers.push(list);
          if (list.every((a) => a.startsWith('127.'))) return cb(null, address, family);
          cb(
            Object.assign(new Error(`connect ECONNREFUSED ${list[0]}:443 (test: internet is off limits)`), {
              code: 'ECONNREFUSED',
            }),
            '',
          );
        });
    }
    return (originalConnect as (...a: unknown[]) => unknown).apply(this, args);
  } as typeof tls.connect;
});

afterAll(() => {
  (tls as { connect: unknown }).connect = originalConnect;
});

afterEach(() => {
  socketAnswers.length = 0;
  tlsConnects = 0;
});

const failure = (promise: Promise<unknown>) => rejection(promise, OutboundError);

/** A resolver that answers from a script, one entry per call (the last one repeats), counting calls. */
function scriptedResolver(...script: string[][]): Resolver & { calls: number } {
  const fn: Resolver & { calls: number } = Object.assign(
    async () => {
      const answer = script[Math.min(fn.calls, script.length - 1)]!;
      fn.calls++;
      return answer.map((address) => ({ address, family: address.includes(':') ? (6 as const) : (4 as const) }));
    },
    { calls: 0 },
  );
  return fn;
}

describe('production policy (allowLoopback off)', () => {
  it('judges IP literals before dispatch: no lookup, no socket', async () => {
    const resolver = scriptedResolver(['8.8.8.8']);
    const client = createOutboundClient({ resolver });
    try {
      for (const url of [
        'https://127.0.0.1/hook',
        'https://2130706433/hook',
        'https://0x7f.1/hook',
        'https://017700000001/hook',
        'https://169.254.169.254/latest/meta-data/',
        'https://[::ffff:127.0.0.1]/hook',
        'https://[fd00:ec2::254]/hook',
        'https://[64:ff9b::a9fe:a9fe]/hook',
        'https://100.64.0.1/hook',
        'https://0.0.0.0/hook',
      ]) {
        expect((await failure(client.post(url, '{}', {}))).kind, url).toBe('blocked_destination');
        expect((await failure(client.getJson(url))).kind, url).toBe('blocked_destination');
      }
      expect(resolver.calls).toBe(0);
      expect(tlsConnects).toBe(0);
    } finally {
      await client.close();
    }
  });

  it('refuses a name when ANY answer is non-public, before a socket is made', async () => {
    for (const answers of [
      ['93.184.215.14', '10.0.0.5'],
      ['2606:4700::1', '::1'],
      ['8.8.8.8', '169.254.169.254'],
      ['::ffff:127.0.0.1'],
      ['64:ff9b::7f00:1'],
    ]) {
      const client = createOutboundClient({ resolver: scriptedResolver(answers) });
      try {
        expect((await failure(client.post('https://hooks.example.com/h', '{}', {}))).kind).toBe('blocked_destination');
      } finally {
        await client.close();
      }
    }
    expect(socketAnswers).toEqual([]);
  });

  it('a name answering public first and private second never connects to the second answer', async () => {
    const resolver = scriptedResolver(['93.184.215.14'], ['127.0.0.1']);
    const client = createOutboundClient({ resolver, timeoutMs: 1_000 });
    try {
      // First connection: vetted public answer, and the socket is pointed at exactly that address.
      expect((await failure(client.post('https://rebind.example.com/h', '{}', {}))).kind).toBe('connect_failed');
      expect(socketAnswers).toEqual([['93.184.215.14']]);
      // Next connection resolves again; the private answer is refused and never reaches a socket.
      expect((await failure(client.post('https://rebind.example.com/h', '{}', {}))).kind).toBe('blocked_destination');
      expect(socketAnswers).toEqual([['93.184.215.14']]);
      expect(resolver.calls).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('allowLoopback cannot be enabled in production mode', () => {
    const saved = process.env.NODE_ENV;
    process.env.NODE_ENV = 'production';
    try {
      expect(() => createOutboundClient({ allowLoopback: true })).toThrow(/cannot be enabled when NODE_ENV=production/);
      expect(() => createOutboundClient({})).not.toThrow();
    } finally {
      process.env.NODE_ENV = saved;
    }
  });
});

describe('pinning against real receivers (allowLoopback)', () => {
  let a: HttpsReceiver; // 127.0.0.1:P — what the system resolver would say for localhost
  let b: HttpsReceiver; // 127.0.0.2:P — what our vetted lookup says

  beforeAll(async () => {
    a = await startHttpsReceiver((_req, res) => res.writeHead(200, { connection: 'close' }).end());
    b = await startHttpsReceiver((_req, res) => res.writeHead(200, { connection: 'close' }).end(), {
      host: '127.0.0.2',
      port: a.port,
    });
  });

  afterAll(async () => {
    await a.close();
    await b.close();
  });

  it('connects to the address the vetted lookup returned, not to a fresh resolution', async () => {
    const resolver = scriptedResolver(['127.0.0.2']);
    const client = loopbackTestClient({ resolver });
    try {
      const before = a.requests.length;
      expect((await client.post(`https://localhost:${a.port}/h`, '{}', {})).status).toBe(200);
      expect(b.requests.map((r) => r.url)).toEqual(['/h']);
      expect(a.requests.length).toBe(before);
      expect(resolver.calls).toBe(1);
      expect(socketAnswers).toEqual([['127.0.0.2']]);
    } finally {
      await client.close();
    }
  });

  it('re-vets on every new connection: a name rebinding to a private address is cut off', async () => {
    const resolver = scriptedResolver(['127.0.0.1'], ['10.0.0.1']);
    const client = loopbackTestClient({ resolver });
    try {
      const before = a.requests.length;
      expect((await client.post(`https://localhost:${a.port}/first`, '{}', {})).status).toBe(200);
      // The receiver closed the connection, so the next delivery must resolve again.
      const err = await failure(client.post(`https://localhost:${a.port}/second`, '{}', {}));
      expect(err.kind).toBe('blocked_destination');
      expect(err.message).toBe('localhost resolves to 10.0.0.1, which is not a public address');
      expect(a.requests.slice(before).map((r) => r.url)).toEqual(['/first']);
      expect(resolver.calls).toBe(2);
    } finally {
      await client.close();
    }
  });

  it('mixed loopback and private answers are refused even with allowLoopback', async () => {
    const client = loopbackTestClient({ resolver: scriptedResolver(['127.0.0.1', '192.168.1.10']) });
    try {
      const before = a.requests.length;
      expect((await failure(client.post(`https://localhost:${a.port}/h`, '{}', {}))).kind).toBe('blocked_destination');
      expect(a.requests.length).toBe(before);
    } finally {
      await client.close();
    }
  });
});

describe('response bodies are never read', () => {
  let flood: HttpsReceiver;
  let floodClosed: Promise<number>;

  beforeAll(async () => {
    let resolveClosed: (bytes: number) => void;
    floodClosed = new Promise((r) => (resolveClosed = r));
    flood = await startHttpsReceiver((_req, res) => {
      // 200 immediately, then an endless body as fast as the socket takes it.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let written = 0;
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) written += chunk.length;
      };
      res.on('drain', pump);
      res.on('close', () => resolveClosed(written));
      pump();
    });
  });

  afterAll(async () => {
    await flood.close();
  });

  it('post returns at the headers while the receiver streams forever, and the connection is cut', async () => {
    const client = loopbackTestClient({ timeoutMs: 5_000 });
    try {
      const started = Date.now();
      const result = await client.post(`https://127.0.0.1:${flood.port}/h`, '{}', {});
      expect(result.status).toBe(200);
      expect(Date.now() - started).toBeLessThan(1_000);
      // The client drains at most a few KiB and then drops the connection: the receiver sees it close.
      const written = await floodClosed;
      expect(written).toBeLessThan(64 * 1024 * 1024);
    } finally {
      await client.close();
    }
  });
});
