// Drives the portal's route-handler logic (web-portal/lib) as Next.js would: a web Request in, a Response out.
import { forwardConnect } from '../../web-portal/lib/connect-proxy';
import { afterAll, beforeAll } from 'vitest';
import type { PortalServerConfig } from '../../web-portal/lib/server-config';
import { startKeyedApp, type KeyedApp } from '../support/keyed-app';
import { forwardTrpc } from '../../web-portal/lib/trpc-proxy';

export const PORTAL_ORIGIN = 'http://127.0.0.1:3000';

export interface PortalResponse {
  status: number;
  headers: Headers;
  body: any;
  text: string;
}

/** Status and text, for assertion messages. */
export const show = (res: PortalResponse) => `${res.status} ${res.text}`;

export interface PortalService {
  /** The real service (local chain, SQLite) the portal's backend talks to. */
  readonly app: KeyedApp;
  /** The portal backend's settings: the service's base URL and the portal key it holds. */
  readonly config: PortalServerConfig;
}

/** Starts the service for this test file (beforeAll) and stops it (afterAll). */
export function usePortalService(): PortalService {
  let app: KeyedApp | undefined;
  beforeAll(async () => {
    app = await startKeyedApp({ dialect: 'sqlite' });
  });
  afterAll(async () => {
    await app?.close();
  });
  return {
    get app() {
      return app!;
    },
    get config() {
      return { apiBase: app!.base, portalKey: app!.portal.secret };
    },
  };
}

async function read(res: Response): Promise<PortalResponse> {
  const text = await res.text();
  let body: unknown;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, body, text };
}

export interface PortalCall {
  method?: string;
  body?: unknown;
  cookie?: string;
  headers?: Record<string, string>;
  /** Query string including `?`. */
  search?: string;
}

function request(path: string, call: PortalCall): Request {
  const headers: Record<string, string> = { ...call.headers };
  if (call.cookie) headers.cookie = call.cookie;
  let body: string | undefined;
  if (call.body !== undefined) {
    body = typeof call.body === 'string' ? call.body : JSON.stringify(call.body);
    headers['content-type'] ??= 'application/json';
  }
  return new Request(`${PORTAL_ORIGIN}${path}${call.search ?? ''}`, { method: call.method ?? 'GET', headers, body });
}

/** POST|GET /api/connect/<op>. */
export async function portalConnect(
  config: PortalServerConfig,
  op: string,
  call: PortalCall = {},
  fetchImpl?: typeof fetch,
) {
  return read(await forwardConnect(op, request(`/api/connect/${op}`, call), config, fetchImpl));
}

/** /api/trpc/<procedure>; a GET sends `input` as tRPC's httpLink does (`?input=<json>`). */
export async function portalTrpc(
  config: PortalServerConfig,
  procedure: string,
  call: PortalCall & { input?: unknown } = {},
  fetchImpl?: typeof fetch,
) {
  const method = call.method ?? 'GET';
  const search =
    method === 'GET' && call.input !== undefined
      ? `?input=${encodeURIComponent(JSON.stringify(call.input))}`
      : call.search;
  const body = method === 'POST' ? (call.body ?? call.input) : undefined;
  return read(
    await forwardTrpc(
      procedure,
      request(`/api/trpc/${procedure}`, { ...call, method, search, body }),
      config,
      fetchImpl,
    ),
  );
}

/** `name=value` of a Set-Cookie header, for sending it back. */
export function cookieOf(setCookie: string | null): string {
  if (!setCookie) throw new Error('no Set-Cookie');
  return setCookie.split(';')[0]!;
}
