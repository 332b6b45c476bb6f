'use client';
// The service's public base URL (for curl lines and the API docs link), handed down from the server layout, which
// reads it from the portal server's environment at request time.
import { createContext, useContext, type ReactNode } from 'react';

const ApiBaseContext = createContext<string>('');

export function ApiBaseProvider({ apiBase, children }: { apiBase: string; children: ReactNode }) {
  return <ApiBaseContext.Provider value={apiBase}>{children}</ApiBaseContext.Provider>;
}

export const useApiBase = () => useContext(ApiBaseContext);
