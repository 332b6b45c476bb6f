'use client';
// Between the identity-event pages: the webhooks and the log.
import Link from 'next/link';
import { usePathname } from 'next/navigation';

const LINKS = [
  { href: '/identity/webhooks', label: 'Webhooks' },
  { href: '/identity/events', label: 'Event log' },
] as const;

export function IdentityNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Identity events">
      <ul className="subnav">
        {LINKS.map((link) => (
          <li key={link.href}>
            <Link href={link.href} aria-current={pathname.startsWith(link.href) ? 'page' : undefined}>
              {link.label}
            </Link>
          </li>
        ))}
      </ul>
    </nav>
  );
}
