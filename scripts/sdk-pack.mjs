// `npm run sdk:pack`: builds @sigil/sdk (client-sdk/dist) and packs it into dist/sigil-sdk-<version>.tgz at the
// repository root, then prints the tarball's absolute path, alone, on stdout (the build's output goes to stderr), so
// that a project elsewhere installs it with `npm install <that path>`, or in one line:
//   npm install "$(npm run -s --prefix /path/to/sigil sdk:pack)"
// The package is not in a registry; this tarball is how it is installed (docs/sdk.md "Install").
// Plain Node, no dependencies.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const destination = join(root, 'dist');
mkdirSync(destination, { recursive: true });
execFileSync('npm', ['run', 'build', '--workspace', 'client-sdk'], { cwd: root, stdio: ['ignore', 2, 2] });
const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
  cwd: join(root, 'client-sdk/dist'),
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 2],
});
const [{ filename }] = JSON.parse(packed);
console.log(join(destination, filename));
