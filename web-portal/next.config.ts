import { fileURLToPath } from 'node:url';
import type { NextConfig } from 'next';

// The npm workspace root: node_modules and the @sigil/* packages (TypeScript sources) live there.
const workspaceRoot = fileURLToPath(new URL('..', import.meta.url));

const config: NextConfig = {
  reactStrictMode: true,
  poweredByHeader: false,
  // The dev tools' floating button sits over every page under `npm start` (next dev) and hides content on phones; the
  // errors it reports also reach the terminal.
  devIndicators: false,
  // @sigil/contract and @sigil/client-sdk ship .ts sources (the name grammar, the Connect signing helpers); the server's
  // router is imported as a type only.
  transpilePackages: ['@sigil/contract', '@sigil/client-sdk'],
  turbopack: { root: workspaceRoot },
  outputFileTracingRoot: workspaceRoot,
  async headers() {
    return [
      {
        source: '/:path*',
        headers: [
          // The sign-in page asks a wallet to sign: never inside someone else's frame.
          { key: 'X-Frame-Options', value: 'DENY' },
          { key: 'Content-Security-Policy', value: "frame-ancestors 'none'" },
          { key: 'X-Content-Type-Options', value: 'nosniff' },
          { key: 'Referrer-Policy', value: 'same-origin' },
        ],
      },
    ];
  },
};

export default config;
