// Makes sure Debian's Chromium is installed for the browser suite (test/browser): playwright-core drives the
// system's /usr/bin/chromium rather than downloading a browser of its own (only the npm registry and Debian's
// packages are reachable here). Installs it with apt-get when missing and this process may (root); otherwise
// fails with the command to run. Plain Node, no dependencies. Prints the browser's path.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';

export const CHROMIUM = process.env.SIGIL_CHROMIUM ?? '/usr/bin/chromium';

export function ensureChromium() {
  if (existsSync(CHROMIUM)) return CHROMIUM;
  if (process.getuid?.() !== 0)
    throw new Error(`${CHROMIUM} is missing: install it with \`sudo apt-get install -y chromium\` (Debian)`);
  const apt = (args) =>
    execFileSync('apt-get', args, {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
  try {
    apt(['install', '-y', '--no-install-recommends', 'chromium']);
  } catch {
    // A fresh machine may have no package lists yet.
    apt(['update']);
    apt(['install', '-y', '--no-install-recommends', 'chromium']);
  }
  if (!existsSync(CHROMIUM)) throw new Error(`apt-get installed chromium, but ${CHROMIUM} is still missing`);
  return CHROMIUM;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(ensureChromium());
