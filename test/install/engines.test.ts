// The README promises Node 20.19: every installed package must accept it, or `npm install` prints EBADENGINE
// warnings on the first run (and the package may not work). Overrides in the root package.json pin the few
// transitive packages whose newest versions ask for Node 22. The one exception is by design and named below.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import semver from 'semver';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');

/**
 * Installed folders allowed to want a newer Node, each with the reason: better-sqlite3 13 under its alias is loaded
 * only on Node 22 and newer (SqliteDriver in server/src/platform/db/connect.ts; docs/data.md "The SQLite driver").
 */
const NEWER_NODE_ONLY: Record<string, string> = {
  'node_modules/better-sqlite3-napi': 'better-sqlite3@13.2.0 wants node >=22',
};
const claimed = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { engines: { node: string } }).engines
  .node;

/** Every package.json under a node_modules folder, nested ones included (they are what npm installs too). */
function installedPackages(dir: string, found: string[] = []): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return found;
  }
  for (const name of entries) {
    if (name.startsWith('.')) continue;
    if (name.startsWith('@')) {
      installedPackages(join(dir, name), found);
      continue;
    }
    const pkg = join(dir, name);
    found.push(join(pkg, 'package.json'));
    installedPackages(join(pkg, 'node_modules'), found);
  }
  return found;
}

it('every installed package accepts the Node version the README and package.json promise', () => {
  const minimum = semver.minVersion(claimed)!.version;
  expect(minimum).toBe('20.19.0');
  const refusing: string[] = [];
  const allowed: string[] = [];
  for (const file of installedPackages(join(root, 'node_modules'))) {
    let manifest: { name?: string; version?: string; engines?: { node?: unknown } };
    try {
      manifest = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue; // a folder without a manifest (a bin link, a leftover) is not an installed package
    }
    const range = manifest.engines?.node;
    if (typeof range !== 'string' || semver.validRange(range) === null) continue;
    if (semver.satisfies(minimum, range)) continue;
    const line = `${manifest.name}@${manifest.version} wants node ${range}`;
    const folder = relative(root, dirname(file));
    if (NEWER_NODE_ONLY[folder] === line) allowed.push(folder);
    else refusing.push(line);
  }
  expect(refusing).toEqual([]);
  // The exception is still needed (and still exactly that package): drop it from the list once it is not.
  expect(allowed).toEqual(Object.keys(NEWER_NODE_ONLY));
});
