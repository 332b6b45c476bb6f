import type { Metadata } from 'next';
import type { ReactNode } from 'react';
import { Nav } from '../components/nav';
import { ApiBaseProvider } from '../components/portal-config';
import { SessionProvider } from '../components/session';
import { portalServerConfig } from '../lib/server-config';
import './globals.css';

// The service's URL comes from the portal server's environment at request time (not frozen into the build).
export const dynamic = 'force-dynamic';

export const metadata: Metadata = {
  title: { default: 'Sigil portal', template: '%s · Sigil portal' },
  description: 'Look up handles and wallets; manage your Sigil API keys, usage and webhooks.',
};

export default function RootLayout({ children }: { children: ReactNode }) {
  const { apiBase } = portalServerConfig();
  return (
    <html lang="en">
      <body>
        <a className="skip-link" href="#main">
          Skip to content
        </a>
        <ApiBaseProvider apiBase={apiBase}>
          <SessionProvider>
            <header>
              <a className="brand" href="/">
                Sigil
              </a>
              <Nav docsUrl={`${apiBase}/docs`} />
            </header>
            <main id="main" tabIndex={-1}>
              {children}
            </main>
          </SessionProvider>
        </ApiBaseProvider>
        <footer>
          A wallet is the identity. Signing in proves control of a wallet or handle only; it is not proof of legal
          identity.
        </footer>
      </body>
    </html>
  );
}
