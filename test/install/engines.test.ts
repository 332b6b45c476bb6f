// The README promises Node 20.19: every installed package must accept it, or `npm install` prints EBADENGINE
// warnings on the first run (and the package may not work). Overrides in the root package.json pin the few
// transitive packages whose newest versions ask for Node 22.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import semver from 'semver';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '..', '..');
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
  for (const file of installedPackages(join(root, 'node_modules'))) {
    let manifest: { name?: string; version?: string; engines?: { node?: unknown } };
    try {
      manifest = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      continue; // a folder without a manifest (a bin link, a leftover) is not an installed package
    }
    const range = manifest.engines?.node;
    if (typeof range !== 'string' || semver.validRange(range) === null) continue;
    if (!semver.satisfies(minimum, range)) refusing.push(`${manifest.name}@${manifest.version} wants node ${range}`);
  }
  expect(refusing).toEqual([]);
});
