// `npm run lint`: every house-rule check, one after another (they would only compete for the 2 cores), each run even
// when an earlier one failed, so that one run shows everything that is wrong. Exits non-zero if any check failed.
// Plain Node, no dependencies.
import { spawnSync } from 'node:child_process';

const checks = [
  ['format', ['run', 'format:check']], // prettier --check
  ['layers', ['run', 'lint:deps']], // dependency-cruiser: layer rules, cycles, undeclared dependencies
  ['unused', ['run', 'lint:unused']], // knip: unused files, exports, dependencies; unlisted dependencies
  ['types', ['run', 'typecheck']], // tsc over contract, server, client-sdk, test, scripts
  ['portal types', ['run', 'typecheck', '--workspace', 'web-portal']], // tsc with the portal's own tsconfig
  ['openapi', ['run', 'lint:openapi']], // Spectral spectral:oas + Redocly recommended over the generated document
  ['sql', ['run', 'count:sql', '--', '--max', '0']], // no SQL call site outside query modules and the data layer
];

const results = [];
for (const [name, args] of checks) {
  console.log(`\n── lint: ${name} (npm ${args.join(' ')})`);
  const started = performance.now();
  const { status, error } = spawnSync('npm', args, { stdio: 'inherit' });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  results.push({ name, ok: status === 0 && !error, seconds });
}

console.log('\n── lint summary');
for (const r of results) console.log(`${r.ok ? 'ok    ' : 'FAILED'}  ${r.name.padEnd(13)} ${r.seconds.padStart(6)} s`);
const failed = results.filter((r) => !r.ok).map((r) => r.name);
console.log(failed.length ? `lint failed: ${failed.join(', ')}` : 'lint passed');
process.exit(failed.length ? 1 : 0);
