import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { base58 } from '@scure/base';
import { expect, it } from 'vitest';
import { describeEachDialect } from '@sigil/test/support/db';
import { authenticateKey, createKey } from './service';

const run = promisify(execFile);
const REPO = fileURLToPath(new URL('../../../../', import.meta.url));

/** Runs the operator CLI the way `npm run key:partner -- <id>` does. */
async function cli(url: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(
      process.execPath,
      ['--import', 'tsx', 'server/src/features/keys/cli.ts', ...args],
      {
        cwd: REPO,
        env: { ...process.env, DATABASE_URL: url },
      },
    );
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

describeEachDialect('keys operator CLI', (ctx) => {
  it('partner <keyId> upgrades a key; free <keyId> downgrades it; an unknown id exits 1', async () => {
    const { key, secret } = await createKey(ctx.db, { account: base58.encode(randomBytes(32)) });
    expect(await cli(ctx.url, 'partner', key.id)).toMatchObject({ code: 0, stdout: `${key.id} is now partner\n` });
    expect((await authenticateKey(ctx.db, secret))!.tier).toBe('partner');
    expect(await cli(ctx.url, 'free', key.id)).toMatchObject({ code: 0, stdout: `${key.id} is now free\n` });
    expect((await authenticateKey(ctx.db, secret))!.tier).toBe('free');
    expect(await cli(ctx.url, 'partner', 'key_nope')).toMatchObject({ code: 1, stderr: 'no key with id key_nope\n' });
  });

  it('portal-rotate prints a new secret that authenticates as the portal key', async () => {
    const result = await cli(ctx.url, 'portal-rotate', 'portal.sigil.local');
    expect(result.code).toBe(0);
    const [headline, secret] = result.stdout.trim().split('\n');
    expect(headline).toBe('portal key portal.sigil.local rotated; new secret (shown once):');
    expect((await authenticateKey(ctx.db, secret))!.id).toBe('portal.sigil.local');
  });
});

it('new-secret prints a well-formed secret; no arguments prints usage and exits 2', async () => {
  const fresh = await cli('sqlite::memory:', 'new-secret');
  expect(fresh.stdout).toMatch(/^sigil_sk_[1-9A-HJ-NP-Za-km-z]{40,44}\n$/);
  expect(await cli('sqlite::memory:')).toMatchObject({
    code: 2,
    stderr: 'usage: cli.ts partner <keyId> | free <keyId> | new-secret | portal-rotate <domain>\n',
  });
});
