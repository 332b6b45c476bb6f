/**
 * Operator commands for keys (docs/keys.md). Opens the database named by DATABASE_URL (unset: the default
 * SQLite file), the same rule the server uses, and migrates it first.
 *
 *   npm run key:partner -- <keyId>                     set a key's tier to partner (after an agreement)
 *   node --import tsx server/src/features/keys/cli.ts free <keyId>           back to free
 *   node --import tsx server/src/features/keys/cli.ts new-secret             print a fresh secret for SIGIL_PORTAL_KEY
 *   node --import tsx server/src/features/keys/cli.ts portal-rotate <domain> replace a generated portal key (local mode)
 */
import { createDatabase, migrateToLatest } from '../../platform/db/index';
import { generateSecret } from './secret';
import { ensurePortalKey, setKeyTier } from './service';

const USAGE = 'usage: cli.ts partner <keyId> | free <keyId> | new-secret | portal-rotate <domain>';

async function main(argv: string[]): Promise<number> {
  const [command, arg] = argv;
  if (command === 'new-secret') {
    process.stdout.write(generateSecret() + '\n');
    return 0;
  }
  if (!arg || !['partner', 'free', 'portal-rotate'].includes(command ?? '')) {
    process.stderr.write(USAGE + '\n');
    return 2;
  }
  const handle = createDatabase({ url: process.env.DATABASE_URL });
  try {
    await migrateToLatest(handle.db);
    if (command === 'portal-rotate') {
      const { key, generatedSecret } = await ensurePortalKey(handle.db, { domain: arg, rotate: true });
      process.stdout.write(`portal key ${key.id} rotated; new secret (shown once):\n${generatedSecret}\n`);
      return 0;
    }
    const tier = command === 'partner' ? 'partner' : 'free';
    if (!(await setKeyTier(handle.db, arg, tier))) {
      process.stderr.write(`no key with id ${arg}\n`);
      return 1;
    }
    process.stdout.write(`${arg} is now ${tier}\n`);
    return 0;
  } finally {
    await handle.close();
  }
}

process.exitCode = await main(process.argv.slice(2));
