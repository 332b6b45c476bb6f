// The outbound trust store is additive: extra CAs (SIGIL_OUTBOUND_CA_FILE: npm start's demo CA, an operator's own)
// are trusted besides Node's default store, never instead of it, and a CA nobody listed is still refused.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoCertificates } from '../../localchain/demo-cert';
import { createOutboundClient, OutboundError } from './client';
import { trustedCas } from './dispatcher';
import { selfSignedCert, startHttpsReceiver, type HttpsReceiver } from '@sigil/test/support/https-receiver';
import { rejection } from '@sigil/test/support/failures';

let own: HttpsReceiver; // an operator's receiver: a certificate of its own CA (selfSignedCert)
let demo: Server; // a host with a certificate from npm start's demo CA
let demoPort: number;

beforeAll(async () => {
  own = await startHttpsReceiver((_req, res) => res.writeHead(204).end());
  const { key, cert } = demoCertificates();
  demo = createServer({ key, cert }, (_req, res) => res.writeHead(204).end());
  demo.on('tlsClientError', () => {});
  await new Promise<void>((resolve) => demo.listen(0, '127.0.0.1', resolve));
  demoPort = (demo.address() as AddressInfo).port;
});
afterAll(async () => {
  await own.close();
  demo.closeAllConnections();
  await new Promise((resolve) => demo.close(resolve));
});

describe('trustedCas', () => {
  it("is Node's default store followed by the extra CAs; without extras, Node's own default (undefined)", () => {
    const extra = selfSignedCert().cert;
    const cas = trustedCas([demoCertificates().caPem, extra])!;
    expect(cas.slice(-2)).toEqual([demoCertificates().caPem, extra]);
    for (const root of tls.rootCertificates) expect(cas).toContain(root);
    expect(trustedCas(undefined)).toBeUndefined();
  });
});

describe('an outbound client with extra CAs', () => {
  it('reaches a receiver of each listed CA (demo CA and an operator CA together)', async () => {
    const client = createOutboundClient({
      allowLoopback: true,
      ca: [demoCertificates().caPem, selfSignedCert().cert],
      timeoutMs: 5_000,
    });
    try {
      expect((await client.post(`https://127.0.0.1:${own.port}/hook`, '{}', {})).status).toBe(204);
      expect((await client.post(`https://127.0.0.1:${demoPort}/hook`, '{}', {})).status).toBe(204);
    } finally {
      await client.close();
    }
  });

  it('still refuses a certificate from a CA it was not given (tls_failed)', async () => {
    const client = createOutboundClient({ allowLoopback: true, ca: demoCertificates().caPem, timeoutMs: 5_000 });
    try {
      const err = await rejection(client.post(`https://127.0.0.1:${own.port}/hook`, '{}', {}), OutboundError);
      expect(err.kind).toBe('tls_failed');
    } finally {
      await client.close();
    }
  });
});
