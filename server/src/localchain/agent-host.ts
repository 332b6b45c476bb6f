// The demo agent host: a small HTTPS server on loopback that serves the demo scenario's agent manifests and their
// x402 endpoints (a 402 challenge, a wrong pay-to, a redirect, a dropped connection …), so that `npm start`'s
// agents resolve with no network. Its certificate is signed by a CA made at start (demo-cert.ts). See
// docs/local-chain.md.
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { demoCertificates } from './demo-cert';
import type { LoopbackHost } from './rpc-server';

/** `npm start`'s port for the demo agent host; the scenario's manifest URLs name it (0 in tests: any free port). */
export const DEFAULT_AGENT_HOST_PORT = 8697;

/** One answer of the demo host: a fixed response, or `drop` (the connection is closed without an answer). */
export type DemoResponse = { status: number; headers?: Record<string, string>; body?: string } | { drop: true };

export interface AgentHost {
  /** `https://127.0.0.1:<port>` (no trailing slash). */
  readonly origin: string;
  readonly port: number;
  /** The CA that signed the host's certificate: PEM, and a file holding it (for SIGIL_OUTBOUND_CA_FILE). */
  readonly caPem: string;
  readonly caFile: string;
  /** Replaces what the host serves: path → answer; any other path answers 404. */
  serve(routes: Record<string, DemoResponse>): void;
  close(): Promise<void>;
}

export async function startAgentHost(options: { port?: number; host?: LoopbackHost } = {}): Promise<AgentHost> {
  const certificates = demoCertificates();
  const { key, cert, caPem } = certificates;
  const host = options.host ?? '127.0.0.1';
  let routes: Record<string, DemoResponse> = {};
  const server: Server = createServer({ key, cert }, (req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const answer = Object.hasOwn(routes, path) ? routes[path]! : { status: 404 };
    if ('drop' in answer) {
      req.socket.destroy();
      return;
    }
    res.writeHead(answer.status, answer.headers);
    res.end(answer.body);
  });
  server.on('tlsClientError', () => {}); // a client that does not trust the demo CA is refused, not a server error
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    origin: `https://${host === '::1' ? '[::1]' : host}:${port}`,
    port,
    caPem,
    get caFile() {
      return certificates.caFile;
    },
    serve(next) {
      routes = next;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
