'use client';
// Which of the signed-in wallet's keys the webhook pages act through. Webhooks belong to the account, so every
// active key manages the same ones; the key only matters as the one a registration's message names. The choice is
// remembered in this browser (an id, not a secret); the first active key is the default.
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import Link from 'next/link';
import { errorText, trpc } from '../lib/trpc';
import { ErrorNotice } from './notice';

const STORAGE = 'sigil.webhooks.key';

const OwnerKeyContext = createContext<string | null>(null);

/** The key id the webhook pages act through (inside WithOwnerKey). */
export function useOwnerKey(): string {
  const key = useContext(OwnerKeyContext);
  if (key === null) throw new Error('useOwnerKey outside WithOwnerKey');
  return key;
}

interface KeyChoice {
  id: string;
  label: string;
}

export function WithOwnerKey({ children }: { children: ReactNode }) {
  const [keys, setKeys] = useState<KeyChoice[] | null>(null);
  const [chosen, setChosen] = useState<string | null>(null);
  const [error, setError] = useState('');
  useEffect(() => {
    trpc.keys.list
      .query({})
      .then(({ keys: all }) => {
        const active = all
          .filter((k) => k.revoked_at === null)
          .map((k) => ({ id: k.id, label: k.name ? `${k.name} (${k.prefix}…)` : `${k.prefix}…` }));
        setKeys(active);
        const stored = window.localStorage.getItem(STORAGE);
        setChosen(active.find((k) => k.id === stored)?.id ?? active[0]?.id ?? null);
      })
      .catch((err) => setError(errorText(err)));
  }, []);
  if (error) return <ErrorNotice>{error}</ErrorNotice>;
  if (keys === null) return <p aria-live="polite">Loading…</p>;
  if (chosen === null)
    return (
      <p>
        Webhooks are managed through one of your API keys, and you have none yet. <Link href="/keys">Create a key</Link>
        , then come back.
      </p>
    );
  return (
    <>
      {keys.length > 1 && (
        <form className="inline" onSubmit={(e) => e.preventDefault()}>
          <label>
            Through key
            <select
              value={chosen}
              onChange={(e) => {
                window.localStorage.setItem(STORAGE, e.target.value);
                setChosen(e.target.value);
              }}
            >
              {keys.map((k) => (
                <option key={k.id} value={k.id}>
                  {k.label}
                </option>
              ))}
            </select>
          </label>
        </form>
      )}
      <OwnerKeyContext.Provider value={chosen}>{children}</OwnerKeyContext.Provider>
    </>
  );
}
