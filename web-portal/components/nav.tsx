'use client';
import { useEffect, useState } from 'react';
import Link from 'next/link';
import { usePathname } from 'next/navigation';
import { useSession } from './session';

/** `section`: the paths the entry stands for (its own path when absent). */
const LINKS: readonly { href: string; label: string; section?: string }[] = [
  { href: '/', label: 'Look up' },
  { href: '/keys', label: 'API keys' },
  { href: '/usage', label: 'Usage' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/identity/webhooks', label: 'Identity events', section: '/identity' },
  { href: '/quickstart', label: 'SDK quickstart' },
];

export function Nav({ docsUrl }: { docsUrl: string }) {
  const pathname = usePathname();
  const { session, signOut } = useSession();
  // The Menu button shows only on narrow screens (globals.css); a followed link closes the menu again.
  const [open, setOpen] = useState(false);
  useEffect(() => setOpen(false), [pathname]);
  const current = (href: string) => (href === '/' ? pathname === '/' : pathname.startsWith(href));
  return (
    <nav aria-label="Main">
      <button
        type="button"
        className="secondary menu-toggle"
        aria-expanded={open}
        aria-controls="main-nav-links"
        onClick={() => setOpen(!open)}
      >
        Menu
      </button>
      <ul id="main-nav-links" className={open ? 'open' : undefined}>
        {LINKS.map((link) => (
          <li key={link.href}>
            <Link
              href={link.href}
              aria-current={current(link.section ?? link.href) ? 'page' : undefined}
              onClick={() => setOpen(false)}
            >
              {link.label}
            </Link>
          </li>
        ))}
        <li>
          <a href={docsUrl}>API docs</a>
        </li>
        {session && (
          <li>
            <button type="button" className="link" onClick={() => void signOut()}>
              Sign out{' '}
              <span className="visually-hidden">{session.handle ? `@${session.handle}` : session.address}</span>
            </button>
          </li>
        )}
      </ul>
    </nav>
  );
}
