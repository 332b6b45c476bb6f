// The browser's tRPC client. Types only from the server's router (`import type`: no server code is bundled);
// requests go to this portal's same-origin /api/trpc, which forwards them to the service (lib/trpc-proxy.ts).
import { createTRPCClient, httpLink, TRPCClientError } from '@trpc/client';
import type { AppRouter } from '@sigil/server/router';

export const trpc = createTRPCClient<AppRouter>({
  // One procedure per request (no batching): the proxy checks each path against its allowlist.
  links: [httpLink({ url: '/api/trpc' })],
});

/** The text to show for a failed call: the service's own message (the spec's error text), and its code. */
export function errorText(err: unknown): string {
  if (err instanceof TRPCClientError) {
    const code = (err.data as { errorCode?: string } | undefined)?.errorCode;
    return code && code !== err.message ? `${err.message} (${code})` : err.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/** Our error code of a failed call (`KEY_NOT_FOUND`, `BAD_REQUEST`, …), when the service gave one. */
export function errorCodeOf(err: unknown): string | undefined {
  return err instanceof TRPCClientError ? (err.data as { errorCode?: string } | undefined)?.errorCode : undefined;
}

/** True when a call failed because the portal session is gone (expired, revoked, signed out elsewhere). */
export function isSessionLost(err: unknown): boolean {
  return errorCodeOf(err) === 'INVALID_SESSION';
}
