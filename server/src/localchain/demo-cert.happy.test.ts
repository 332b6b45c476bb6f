import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished, expect, it } from 'vitest';
import { sweepDemoFolders } from './demo-cert';

it('removes the demo CA folders of processes that are gone, and only those', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sigil-sweep-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
  const gone = spawnSync(process.execPath, ['-e', '']).pid;
  const names = [
    `sigil-demo-ca-${gone}-AbC123`, // a process that was killed before its exit handler ran
    `sigil-demo-ca-${process.pid}-XyZ789`, // this process: still in use
    'sigil-demo-ca-Qw12Er', // not named for a process
    `other-${gone}-AbC123`,
  ];
  for (const name of names) mkdirSync(join(dir, name));
  sweepDemoFolders(dir);
  expect(readdirSync(dir).sort()).toEqual(names.slice(1).sort());
});
