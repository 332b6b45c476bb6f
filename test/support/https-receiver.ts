// Test fixtures for real local HTTPS receivers: a throwaway self-signed certificate (openssl CLI; node:crypto
// cannot issue X.509 certificates on Node 20 and no certificate package is installed) and a receiver on
// loopback. Never imported by production code.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createOutboundClient,
  type OutboundClient,
  type OutboundClientOptions,
} from '../../server/src/platform/outbound/client';
import type { Resolver } from '../../server/src/platform/outbound/destination-policy';

export interface TestCert {
  key: string;
  cert: string;
}

let cached: TestCert | undefined;

/** A P-256 self-signed certificate for localhost, 127.0.0.1, 127.0.0.2 and ::1, valid one day. */
export function selfSignedCert(): TestCert {
  if (cached) return cached;
  const dir = mkdtempSync(join(tmpdir(), 'sigil-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:127.0.0.2,IP:::1',
      ],
      { stdio: 'pipe' },
    );
    cached = { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  remotePort: number;
}

export interface HttpsReceiver {
  server: Server;
  port: number;
  host: string;
  /** Every request that reached a handler, with its full body. */
  requests: ReceivedRequest[];
  /** Connections accepted (TCP), to observe keep-alive reuse. */
  connections: number;
  close(): Promise<void>;
}

/** Starts an HTTPS receiver on `host` (127.0.0.1 by default), port 0 unless given. */
export async function startHttpsReceiver(
  handler: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void,
  options: { host?: string; port?: number } = {},
): Promise<HttpsReceiver> {
  const { key, cert } = selfSignedCert();
  const host = options.host ?? '127.0.0.1';
  const requests: ReceivedRequest[] = [];
  const receiver = { requests, connections: 0 } as HttpsReceiver;
  const server = createServer({ key, cert }, (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        headers: req.headers,
        body,
        remotePort: req.socket.remotePort ?? 0,
      });
      handler(req, res, body);
    });
  });
  server.on('secureConnection', () => receiver.connections++);
  server.on('tlsClientError', () => {}); // clients that reject our certificate are expected in tests
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  receiver.server = server;
  receiver.host = host;
  receiver.port = (server.address() as AddressInfo).port;
  receiver.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return receiver;
}

/** An outbound client allowed to reach loopback and trusting `selfSignedCert()`: for tests against our receivers. */
export function loopbackTestClient(options: Omit<OutboundClientOptions, 'allowLoopback' | 'ca'> = {}): OutboundClient {
  return createOutboundClient({ allowLoopback: true, ca: selfSignedCert().cert, ...options });
}

/** Every name resolves to 127.0.0.1, so a test can use any host name against a loopback receiver. */
export const loopbackResolver: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];
