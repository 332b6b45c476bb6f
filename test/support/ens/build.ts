// Regenerates contracts.json, the bytecode the ENS test chain of node.ts deploys:
// - ENS's own compiled ENSRegistry and PublicResolver (multicoin, ENSIP-9), copied from the build/ folders of their npm
//   packages, installed with --ignore-scripts into a temporary folder (never into the project);
// - our test contracts of resolvers.sol, compiled with solc-js (wasm, bundled in the npm package: offline).
// Committed output, so tests need no compiler (solc-js takes ~3 s). Run: npx tsx test/support/ens/build.ts
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import solc from 'solc';

const here = new URL('.', import.meta.url).pathname;
const ENS_PACKAGES = ['@ensdomains/ens@0.6.2', '@ensdomains/resolver@0.3.1'];
const OUR_CONTRACTS = ['TestUniversalResolver', 'RevertingResolver', 'LegacyAddrResolver', 'OffchainResolver'];

export interface EnsTestContract {
  from: string;
  compiler: string;
  bytecode: `0x${string}`;
}

function ensArtifacts(): Record<string, EnsTestContract> {
  const dir = mkdtempSync(join(tmpdir(), 'ens-artifacts-'));
  try {
    execFileSync(
      'npm',
      ['install', '--prefix', dir, '--ignore-scripts', '--no-audit', '--no-fund', '--no-save', ...ENS_PACKAGES],
      { stdio: 'inherit' },
    );
    const read = (pkg: string, contract: string): EnsTestContract => {
      const artifact = JSON.parse(
        readFileSync(join(dir, 'node_modules', pkg, 'build/contracts', `${contract}.json`), 'utf8'),
      );
      const version = JSON.parse(readFileSync(join(dir, 'node_modules', pkg, 'package.json'), 'utf8')).version;
      return {
        from: `${pkg}@${version} build/contracts/${contract}.json`,
        compiler: `solc ${artifact.compiler.version}`,
        bytecode: artifact.bytecode,
      };
    };
    return {
      ENSRegistry: read('@ensdomains/ens', 'ENSRegistry'),
      PublicResolver: read('@ensdomains/resolver', 'PublicResolver'),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function ourContracts(): Record<string, EnsTestContract> {
  const input = {
    language: 'Solidity',
    sources: { 'resolvers.sol': { content: readFileSync(join(here, 'resolvers.sol'), 'utf8') } },
    // cancun: opcodes every EVM we might run this on knows (the in-process EVM defaults to a later fork)
    settings: {
      optimizer: { enabled: true, runs: 200 },
      evmVersion: 'cancun',
      outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
    },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input)));
  const errors = (output.errors ?? []).filter((e: { severity: string }) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e: { formattedMessage: string }) => e.formattedMessage).join('\n'));
  return Object.fromEntries(
    OUR_CONTRACTS.map((name) => [
      name,
      {
        from: `resolvers.sol`,
        compiler: `solc ${solc.version()} optimizer 200 cancun`,
        bytecode: `0x${output.contracts['resolvers.sol'][name].evm.bytecode.object}`,
      },
    ]),
  );
}

const contracts = { ...ensArtifacts(), ...ourContracts() };
writeFileSync(join(here, 'contracts.json'), `${JSON.stringify(contracts, null, 2)}\n`);
console.log(
  Object.entries(contracts)
    .map(([name, c]) => `${name}: ${(c.bytecode.length - 2) / 2} bytes from ${c.from}`)
    .join('\n'),
);
