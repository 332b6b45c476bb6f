// Installs dependencies from the lockfile when they are missing or stale, so that `npm start` and `npm test`
// work on a fresh machine. Plain Node (no dependencies): it runs before anything is installed.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = join(root, 'package-lock.json');
const stamp = join(root, 'node_modules', '.sigil-install-stamp');
const want = createHash('sha256').update(readFileSync(lock)).digest('hex');
const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';

// The real minimum, checked before anything else (package.json "engines"; dependencies are pinned by overrides where
// theirs asked for more). A clear line instead of an obscure failure later.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`sigil: Node ${process.versions.node} is too old: Node 20.19 or newer is required.`);
  process.exit(1);
}

if (have !== want || !existsSync(join(root, 'node_modules'))) {
  console.log(
    'sigil: installing dependencies from package-lock.json. The first install downloads about 620 packages and takes' +
      ' 3-4 minutes on a 2-core machine (less with a warm npm cache); a line every 15 s shows it is still going.',
  );
  const started = Date.now();
  const ticker = setInterval(() => {
    console.log(`sigil: still installing dependencies (${Math.round((Date.now() - started) / 1000)} s)…`);
  }, 15_000);
  // `npm install`, not `npm ci`: npm 11.19 leaves other platforms' optional packages (e.g. rollup's) out of the
  // lockfile and then refuses `npm ci` on that same lockfile. `npm install` still installs the locked versions.
  const code = await new Promise((resolve) => {
    spawn('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' }).on('exit', resolve);
  });
  clearInterval(ticker);
  if (code !== 0) {
    console.error(`sigil: npm install failed (exit code ${code}).`);
    process.exit(1);
  }
  console.log(`sigil: dependencies installed in ${Math.round((Date.now() - started) / 1000)} s.`);
  const now = createHash('sha256').update(readFileSync(lock)).digest('hex');
  writeFileSync(stamp, now + '\n');
}
