// The portal server's configuration, read from its environment at request time (never inlined into the browser
// bundle: none of these is NEXT_PUBLIC_). The browser only ever talks to this portal's own /api routes.

export interface PortalServerConfig {
  /** Base URL of the Sigil service, no trailing slash. */
  apiBase: string;
  /** The portal's own API key (`sigil_sk_…`); attached to Connect calls here, never sent to the browser. */
  portalKey: string | undefined;
}

export const DEFAULT_API_BASE = 'http://127.0.0.1:8787';

export function portalServerConfig(env: Record<string, string | undefined> = process.env): PortalServerConfig {
  const apiBase = (env.SIGIL_API_URL || env.NEXT_PUBLIC_SIGIL_API || DEFAULT_API_BASE).replace(/\/+$/, '');
  const portalKey = env.SIGIL_PORTAL_KEY?.trim() || undefined;
  return { apiBase, portalKey };
}
