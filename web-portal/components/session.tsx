'use client';
// The signed-in state shared by every page (and the nav): read once from /api/session (lib/session-read.ts),
// replaced after a sign-in, cleared at sign-out or when a call answers INVALID_SESSION.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { errorText, isSessionLost } from '../lib/trpc';

export type SessionRead = inferRouterOutputs<AppRouter>['connect']['session'];

interface SessionState {
  /** undefined while loading, null when signed out. */
  session: SessionRead | null | undefined;
  setSession(session: SessionRead | null): void;
  signOut(): Promise<void>;
}

const SessionContext = createContext<SessionState | undefined>(undefined);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [session, setSession] = useState<SessionRead | null | undefined>(undefined);
  useEffect(() => {
    fetch('/api/session', { cache: 'no-store' })
      .then((r) => (r.ok ? (r.json() as Promise<{ session: SessionRead | null }>) : { session: null }))
      .then((body) => setSession(body.session))
      .catch(() => setSession(null));
  }, []);
  const signOut = useCallback(async () => {
    await fetch('/api/signout', { method: 'POST' });
    setSession(null);
  }, []);
  const value = useMemo(() => ({ session, setSession, signOut }), [session, signOut]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const state = useContext(SessionContext);
  if (!state) throw new Error('useSession outside SessionProvider');
  return state;
}

/**
 * What a signed-in page does with a failed call: a lost session signs the page out (its sign-in form comes back);
 * anything else is handed to `show` as the service's message and code.
 */
export function useShowError(show: (text: string) => void): (err: unknown) => void {
  const { setSession } = useSession();
  return useCallback(
    (err: unknown) => {
      if (isSessionLost(err)) setSession(null);
      else show(errorText(err));
    },
    [setSession, show],
  );
}
