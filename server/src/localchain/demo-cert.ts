// The demo agent host's certificates: a throwaway certificate authority and a loopback server certificate it
// signs, made at start with the openssl CLI (node:crypto cannot issue X.509 certificates on Node 20). The CA is
// written to a file so that the service can trust it through SIGIL_OUTBOUND_CA_FILE, in local mode only.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface DemoCertificates {
  /** The CA certificate (PEM): what a client must trust to reach the demo host. */
  caPem: string;
  /** A file holding `caPem` (kept until the process exits): the value for SIGIL_OUTBOUND_CA_FILE. */
  caFile: string;
  /** The server's private key and certificate (PEM), for 127.0.0.1, ::1 and localhost. */
  key: string;
  cert: string;
}

let cached: DemoCertificates | undefined;

// Every folder this module makes is named for its process, so that the next process can remove what one that was
// killed (SIGKILL skips the exit handler) left behind.
const PREFIX = 'sigil-demo-ca-';
const OWNED = new RegExp(`^${PREFIX}(\\d+)-`);
const ownFolder = () => mkdtempSync(join(tmpdir(), `${PREFIX}${process.pid}-`));

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists under another user.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Removes the folders of processes that are gone (a reused pid only keeps its folder a while longer). */
export function sweepDemoFolders(dir: string = tmpdir()): void {
  for (const name of readdirSync(dir)) {
    const pid = Number(OWNED.exec(name)?.[1]);
    if (Number.isSafeInteger(pid) && pid > 0 && !alive(pid)) rmSync(join(dir, name), { recursive: true, force: true });
  }
}

/** One set per process: every local chain started by the process (tests start many) shares it. */
export function demoCertificates(): DemoCertificates {
  if (cached) return cached;
  sweepDemoFolders();
  const dir = ownFolder();
  const file = (name: string) => join(dir, name);
  const openssl = (...args: string[]) => execFileSync('openssl', args, { stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(
    'req',
    '-x509',
    ...ec,
    '-keyout',
    file('ca.key'),
    '-out',
    file('ca.pem'),
    '-days',
    '2',
    '-subj',
    '/CN=Sigil local demo CA',
  );
  openssl('req', '-new', ...ec, '-keyout', file('host.key'), '-out', file('host.csr'), '-subj', '/CN=localhost');
  writeFileSync(file('ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1\nbasicConstraints=CA:FALSE\n');
  openssl(
    'x509',
    '-req',
    '-in',
    file('host.csr'),
    '-CA',
    file('ca.pem'),
    '-CAkey',
    file('ca.key'),
    '-CAcreateserial',
    '-out',
    file('host.pem'),
    '-days',
    '2',
    '-extfile',
    file('ext.cnf'),
  );
  const caPem = readFileSync(file('ca.pem'), 'utf8');
  const key = readFileSync(file('host.key'), 'utf8');
  const cert = readFileSync(file('host.pem'), 'utf8');
  // Only the CA certificate stays on disk (public); the keys live in memory.
  rmSync(dir, { recursive: true, force: true });
  let caFile: string | undefined;
  cached = {
    caPem,
    key,
    cert,
    // Written on first use only (npm start, the e2e suite): most test chains never need the file.
    get caFile() {
      if (!caFile) {
        const caDir = ownFolder();
        caFile = join(caDir, 'ca.pem');
        writeFileSync(caFile, caPem);
        process.once('exit', () => rmSync(caDir, { recursive: true, force: true }));
      }
      return caFile;
    },
  };
  return cached;
}
