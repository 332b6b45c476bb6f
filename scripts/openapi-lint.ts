// `npm run lint:openapi` (part of `npm run lint`): the OpenAPI document exactly as the service serves it, generated
// in-process from the router (no server), linted by two stock linters with their stock rulesets: Spectral's
// `spectral:oas` (.spectral.yaml) and Redocly's `recommended` (redocly.yaml). Both must report no error and no
// warning; a rule is turned off only in those files, with its reason written next to it.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sdkOpenApiDocument } from './sdk-generate';

const root = fileURLToPath(new URL('..', import.meta.url));
const bin = (name: string) => join(root, 'node_modules/.bin', name);

const dir = mkdtempSync(join(tmpdir(), 'sigil-openapi-'));
const file = join(dir, 'openapi.json');
writeFileSync(file, JSON.stringify(sdkOpenApiDocument(), null, 2));

const linters: [name: string, command: string, args: string[]][] = [
  // --fail-severity=warn: a warning fails the lint as an error does.
  ['spectral', bin('spectral'), ['lint', file, '--ruleset', join(root, '.spectral.yaml'), '--fail-severity=warn']],
  // --max-problems: list every problem, not the first 100.
  ['redocly', bin('redocly'), ['lint', file, '--config', join(root, 'redocly.yaml'), '--max-problems=1000']],
];

let failed = 0;
for (const [name, command, args] of linters) {
  const { status, stdout, stderr } = spawnSync(command, args, { cwd: root, encoding: 'utf8' });
  const output = `${stdout}\n${stderr}`;
  // Redocly exits 0 on warnings: its summary line is what says whether any was found.
  const clean = status === 0 && !/You have \d+ warnings?/.test(output);
  console.log(`${clean ? 'ok    ' : 'FAILED'}  ${name}`);
  if (!clean) {
    failed++;
    console.log(output);
  }
}
rmSync(dir, { recursive: true, force: true });
process.exit(failed ? 1 : 0);
