'use client';
// The pages of one API key (its OpenID Connect client, its Connect sessions): the key is read from the account's
// list, so a key of another account, an unknown id and a revoked key each get a plain answer instead of the page;
// above the page, the key's name and id and the links between its pages.
import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@sigil/server/router';
import { trpc } from '../lib/trpc';
import { useShowError } from './session';
import { RequireSession } from './sign-in';
import { ErrorNotice } from './notice';

export type KeyRow = inferRouterOutputs<AppRouter>['keys']['list']['keys'][number];

const KeyContext = createContext<KeyRow | null>(null);

/** The key the page is about (inside KeyPages). */
export function useKey(): KeyRow {
  const key = useContext(KeyContext);
  if (key === null) throw new Error('useKey outside KeyPages');
  return key;
}

/** A key's label, or its id when it has none: how the pages name a key. */
export const keyLabel = (key: KeyRow) => key.name ?? key.id;

export function KeyPages({ id, purpose, children }: { id: string; purpose: string; children: ReactNode }) {
  return (
    <RequireSession purpose={purpose}>
      <WithKey id={id}>{children}</WithKey>
    </RequireSession>
  );
}

function WithKey({ id, children }: { id: string; children: ReactNode }) {
  const [key, setKey] = useState<KeyRow | null | undefined>(undefined);
  const [error, setError] = useState('');
  const fail = useShowError(setError);
  useEffect(() => {
    trpc.keys.list
      .query({})
      .then(({ keys }) => setKey(keys.find((k) => k.id === id) ?? null))
      .catch(fail);
  }, [id, fail]);

  if (error) return <ErrorNotice>{error}</ErrorNotice>;
  if (key === undefined) return <p aria-live="polite">Loading the key…</p>;
  if (key === null)
    return (
      <p role="alert">
        No key <span className="mono">{id}</span> in your account. <Link href="/keys">Back to your keys</Link>
      </p>
    );
  return (
    <>
      <KeyHeader keyRow={key} />
      {key.revoked_at !== null ? (
        <p role="status">
          This key is revoked: requests with it fail, and it is no OpenID Connect client any more.{' '}
          <Link href="/keys">Back to your keys</Link>
        </p>
      ) : (
        <KeyContext.Provider value={key}>{children}</KeyContext.Provider>
      )}
    </>
  );
}

function KeyHeader({ keyRow }: { keyRow: KeyRow }) {
  const pathname = usePathname();
  const base = `/keys/${encodeURIComponent(keyRow.id)}`;
  const links = [
    { href: `${base}/oidc`, label: 'OpenID Connect' },
    { href: `${base}/sessions`, label: 'Sessions' },
  ];
  return (
    <>
      <p>
        <Link href="/keys">← All keys</Link>
      </p>
      <p>
        Key <strong>{keyRow.name ?? <em>unnamed</em>}</strong> <span className="mono">{keyRow.id}</span>
      </p>
      <nav aria-label="This key">
        <ul className="subnav">
          {links.map((link) => (
            <li key={link.href}>
              <Link href={link.href} aria-current={pathname === link.href ? 'page' : undefined}>
                {link.label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
    </>
  );
}
