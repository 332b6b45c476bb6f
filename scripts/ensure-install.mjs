// Installs dependencies from the lockfile when they are missing or stale, so that `npm start` and `npm test`
// work on a fresh machine. Plain Node (no dependencies): it runs before anything is installed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { execSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = join(root, 'package-lock.json');
const stamp = join(root, 'node_modules', '.sigil-install-stamp');
const want = createHash('sha256').update(readFileSync(lock)).digest('hex');
const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';

if (have !== want || !existsSync(join(root, 'node_modules'))) {
  console.log('sigil: installing dependencies from package-lock.json (first run takes a minute or two)…');
  // `npm install`, not `npm ci`: npm 11.19 leaves other platforms' optional packages (e.g. rollup's) out of the
  // lockfile and then refuses `npm ci` on that same lockfile. `npm install` still installs the locked versions.
  execSync('npm install --no-audit --no-fund', { cwd: root, stdio: 'inherit' });
  const now = createHash('sha256').update(readFileSync(lock)).digest('hex');
  writeFileSync(stamp, now + '\n');
}
