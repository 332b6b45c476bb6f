import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Nav } from '../components/nav';
import './globals.css';

export const metadata: Metadata = {
  title: { default: 'Sigil portal', template: '%s · Sigil portal' },
  description: 'Look up handles and wallets; manage your Sigil API keys.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body>
        <header>
          <a className="brand" href="/">
            Sigil
          </a>
          <Nav />
        </header>
        <main>{children}</main>
        <footer>
          A wallet is the identity. Signing in proves control of a wallet or handle only; it is not proof of legal
          identity.
        </footer>
      </body>
    </html>
  );
}
