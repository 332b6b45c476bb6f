import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, paymentRails, TEST_PROGRAM_ID, testConfig } from './config';

const required = { SIGIL_RPC_URL: 'http://127.0.0.1:8899', SIGIL_PROGRAM_ID: TEST_PROGRAM_ID };

function failure(env: Record<string, string | undefined>): ConfigError {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return err as ConfigError;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('loadConfig', () => {
  it('applies the defaults', () => {
    expect(loadConfig(required)).toEqual({
      port: 8787,
      host: '127.0.0.1',
      nodeEnv: 'development',
      logLevel: 'info',
      publicUrl: 'http://127.0.0.1:8787',
      rpcUrl: 'http://127.0.0.1:8899',
      rpcTimeoutMs: 5000,
      requestTimeoutMs: 10_000,
      requestDeadlineMs: 6000,
      drainMs: 5000,
      programId: TEST_PROGRAM_ID,
      chainName: 'x1',
      domainSuffixes: ['x1', 'xnt', 'xen'],
      resolveCacheMs: 1000,
      solRpcUrl: undefined,
      ethRpcUrl: undefined,
      network: 'testnet',
      ipfsGateway: undefined,
      outboundAllowLoopback: false,
      outboundCa: undefined,
      payWebhooks: true,
      identityWebhooks: true,
      identityRetentionDays: 90,
      identityBackfillSlot: 0,
      chainSource: 'blocks',
      yellowstone: { url: undefined, token: undefined },
      handleIndexIntervalMs: 10_000,
      portalDomain: 'portal.sigil.local',
      portalKey: undefined,
      signinDomains: ['portal.sigil.local', 'app.sigil-partner.dev'],
      challengeTtlSeconds: 300,
      sessionTtlSeconds: 86400,
      oidcPageLimitPerMinute: 300,
      databaseUrl: undefined,
    });
  });

  it('takes the Yellowstone source only with its endpoint', () => {
    expect(
      loadConfig({
        ...required,
        SIGIL_CHAIN_SOURCE: 'yellowstone',
        SIGIL_YELLOWSTONE_URL: 'https://geyser.example:443',
        SIGIL_YELLOWSTONE_TOKEN: 'tok',
      }),
    ).toMatchObject({ chainSource: 'yellowstone', yellowstone: { url: 'https://geyser.example:443', token: 'tok' } });
    expect(() => loadConfig({ ...required, SIGIL_CHAIN_SOURCE: 'yellowstone' })).toThrow(
      'SIGIL_YELLOWSTONE_URL is required when SIGIL_CHAIN_SOURCE=yellowstone',
    );
    expect(() => loadConfig({ ...required, SIGIL_CHAIN_SOURCE: 'addresses' })).toThrow(
      'SIGIL_CHAIN_SOURCE must be blocks or yellowstone',
    );
  });

  it('reads every variable', () => {
    const config = loadConfig({
      ...required,
      PORT: '9000',
      HOST: '0.0.0.0',
      NODE_ENV: 'production',
      LOG_LEVEL: 'warn',
      SIGIL_PUBLIC_URL: 'https://api.sigil.example/',
      SIGIL_RPC_TIMEOUT_MS: '2500',
      SIGIL_CHAIN_NAME: 'x1-testnet',
      SIGIL_DOMAIN_SUFFIXES: ' X1, xnt ',
      SIGIL_SOL_RPC_URL: 'https://sol.example',
      SIGIL_ETH_RPC_URL: 'https://eth.example',
      DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test',
    });
    expect(config).toMatchObject({
      port: 9000,
      host: '0.0.0.0',
      nodeEnv: 'production',
      logLevel: 'warn',
      publicUrl: 'https://api.sigil.example',
      rpcTimeoutMs: 2500,
      chainName: 'x1-testnet',
      domainSuffixes: ['x1', 'xnt'],
      solRpcUrl: 'https://sol.example',
      ethRpcUrl: 'https://eth.example',
      databaseUrl: 'postgres://postgres@127.0.0.1:5432/test',
    });
  });

  it('agents: network, IPFS gateway (https only), loopback outbound (refused in production)', () => {
    expect(
      loadConfig({
        ...required,
        SIGIL_NETWORK: 'mainnet',
        SIGIL_IPFS_GATEWAY: 'https://ipfs.example',
        SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true',
      }),
    ).toMatchObject({
      network: 'mainnet',
      ipfsGateway: 'https://ipfs.example',
      outboundAllowLoopback: true,
    });
    expect(failure({ ...required, SIGIL_NETWORK: 'devnet' }).message).toBe(
      'invalid configuration: SIGIL_NETWORK must be mainnet or testnet (got "devnet")',
    );
    expect(failure({ ...required, SIGIL_IPFS_GATEWAY: 'http://ipfs.example' }).message).toBe(
      'invalid configuration: SIGIL_IPFS_GATEWAY must be an https URL (got "http://ipfs.example")',
    );
    expect(failure({ ...required, SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'yes' }).variable).toBe(
      'SIGIL_OUTBOUND_ALLOW_LOOPBACK',
    );
    expect(failure({ ...required, NODE_ENV: 'production', SIGIL_OUTBOUND_ALLOW_LOOPBACK: '1' }).message).toBe(
      'invalid configuration: SIGIL_OUTBOUND_ALLOW_LOOPBACK must not be set when NODE_ENV=production (local development and tests only)',
    );
    expect(
      loadConfig({ ...required, NODE_ENV: 'production', SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'false' }).outboundAllowLoopback,
    ).toBe(false);
  });

  it('SIGIL_OUTBOUND_CA_FILE: a readable PEM file, read at start; refused in production like the loopback switch', () => {
    const dir = mkdtempSync(join(tmpdir(), 'sigil-config-ca-'));
    try {
      const pem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
      writeFileSync(join(dir, 'ca.pem'), pem);
      writeFileSync(join(dir, 'not.pem'), 'hello');
      expect(loadConfig({ ...required, SIGIL_OUTBOUND_CA_FILE: join(dir, 'ca.pem') }).outboundCa).toBe(pem);
      expect(failure({ ...required, SIGIL_OUTBOUND_CA_FILE: join(dir, 'missing.pem') }).message).toBe(
        `invalid configuration: SIGIL_OUTBOUND_CA_FILE cannot be read (ENOENT) (got ${JSON.stringify(join(dir, 'missing.pem'))})`,
      );
      // Several files, joined like PATH: all of them are trusted (besides the system store, platform/outbound).
      const other = '-----BEGIN CERTIFICATE-----\nMIIC\n-----END CERTIFICATE-----\n';
      writeFileSync(join(dir, 'other.pem'), other);
      const both = `${join(dir, 'ca.pem')}:${join(dir, 'other.pem')}`;
      expect(loadConfig({ ...required, SIGIL_OUTBOUND_CA_FILE: both }).outboundCa).toBe(`${pem}\n${other}`);
      expect(
        failure({ ...required, SIGIL_OUTBOUND_CA_FILE: `${join(dir, 'ca.pem')}:${join(dir, 'missing.pem')}` }).message,
      ).toMatch(/^invalid configuration: SIGIL_OUTBOUND_CA_FILE cannot be read \(ENOENT: .*missing\.pem\)/);
      expect(
        failure({ ...required, SIGIL_OUTBOUND_CA_FILE: `${join(dir, 'ca.pem')}:${join(dir, 'not.pem')}` }).message,
      ).toMatch(/^invalid configuration: SIGIL_OUTBOUND_CA_FILE must be a PEM file of CA certificates/);
      expect(failure({ ...required, SIGIL_OUTBOUND_CA_FILE: join(dir, 'not.pem') }).message).toMatch(
        /^invalid configuration: SIGIL_OUTBOUND_CA_FILE must be a PEM file of CA certificates/,
      );
      expect(
        failure({ ...required, NODE_ENV: 'production', SIGIL_OUTBOUND_CA_FILE: join(dir, 'ca.pem') }).message,
      ).toBe(
        'invalid configuration: SIGIL_OUTBOUND_CA_FILE must not be set when NODE_ENV=production (local development and tests only)',
      );
      // Empty counts as unset, in production too.
      expect(
        loadConfig({ ...required, NODE_ENV: 'production', SIGIL_OUTBOUND_CA_FILE: '' }).outboundCa,
      ).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('pay webhooks: on by default, SIGIL_PAY_WEBHOOKS=false turns them off, anything else is refused', () => {
    expect(loadConfig({ ...required, SIGIL_PAY_WEBHOOKS: 'false' }).payWebhooks).toBe(false);
    expect(loadConfig({ ...required, SIGIL_PAY_WEBHOOKS: '0' }).payWebhooks).toBe(false);
    expect(loadConfig({ ...required, SIGIL_PAY_WEBHOOKS: 'true' }).payWebhooks).toBe(true);
    expect(loadConfig({ ...required, SIGIL_IDENTITY_RETENTION_DAYS: '30' }).identityRetentionDays).toBe(30);
    expect(loadConfig({ ...required, SIGIL_IDENTITY_BACKFILL_SLOT: '1200' }).identityBackfillSlot).toBe(1200);
    expect(() => loadConfig({ ...required, SIGIL_IDENTITY_RETENTION_DAYS: '0' })).toThrow(
      /SIGIL_IDENTITY_RETENTION_DAYS/,
    );
    expect(failure({ ...required, SIGIL_PAY_WEBHOOKS: 'off' }).message).toBe(
      'invalid configuration: SIGIL_PAY_WEBHOOKS must be true or false (got "off")',
    );
  });

  it('identity webhooks: on by default, switched alone by SIGIL_IDENTITY_WEBHOOKS, anything else is refused', () => {
    const off = loadConfig({ ...required, SIGIL_IDENTITY_WEBHOOKS: 'false' });
    expect([off.identityWebhooks, off.payWebhooks]).toEqual([false, true]);
    const payOff = loadConfig({ ...required, SIGIL_PAY_WEBHOOKS: 'false' });
    expect([payOff.identityWebhooks, payOff.payWebhooks]).toEqual([true, false]);
    expect(loadConfig({ ...required, SIGIL_IDENTITY_WEBHOOKS: '1' }).identityWebhooks).toBe(true);
    expect(failure({ ...required, SIGIL_IDENTITY_WEBHOOKS: 'no' }).message).toBe(
      'invalid configuration: SIGIL_IDENTITY_WEBHOOKS must be true or false (got "no")',
    );
  });

  it('handle index: every 10 s by default, 0 turns it off, 1..999 and non-integers are refused', () => {
    expect(loadConfig({ ...required, SIGIL_HANDLE_INDEX_INTERVAL_MS: '0' }).handleIndexIntervalMs).toBe(0);
    expect(loadConfig({ ...required, SIGIL_HANDLE_INDEX_INTERVAL_MS: '2500' }).handleIndexIntervalMs).toBe(2500);
    expect(failure({ ...required, SIGIL_HANDLE_INDEX_INTERVAL_MS: '500' }).message).toBe(
      'invalid configuration: SIGIL_HANDLE_INDEX_INTERVAL_MS must be 0 (off) or at least 1000 (got "500")',
    );
    expect(failure({ ...required, SIGIL_HANDLE_INDEX_INTERVAL_MS: 'soon' }).message).toBe(
      'invalid configuration: SIGIL_HANDLE_INDEX_INTERVAL_MS must be an integer (got "soon")',
    );
  });

  it('treats empty values as unset', () => {
    const config = loadConfig({ ...required, PORT: '', SIGIL_SOL_RPC_URL: '  ', DATABASE_URL: '' });
    expect(config.port).toBe(8787);
    expect(config.solRpcUrl).toBeUndefined();
    expect(config.databaseUrl).toBeUndefined();
  });

  it('is frozen', () => {
    expect(Object.isFrozen(loadConfig(required))).toBe(true);
  });

  it.each([
    [{ SIGIL_RPC_URL: undefined }, 'SIGIL_RPC_URL', 'invalid configuration: SIGIL_RPC_URL is required'],
    [{ SIGIL_PROGRAM_ID: undefined }, 'SIGIL_PROGRAM_ID', 'invalid configuration: SIGIL_PROGRAM_ID is required'],
    [{ PORT: 'abc' }, 'PORT', 'invalid configuration: PORT must be an integer (got "abc")'],
    [{ PORT: '70000' }, 'PORT', 'invalid configuration: PORT must be 0-65535 (got "70000")'],
    [
      { LOG_LEVEL: 'loud' },
      'LOG_LEVEL',
      'invalid configuration: LOG_LEVEL must be fatal, error, warn, info, debug, trace or silent (got "loud")',
    ],
    [
      { NODE_ENV: 'staging' },
      'NODE_ENV',
      'invalid configuration: NODE_ENV must be development, production or test (got "staging")',
    ],
    [
      { SIGIL_RPC_URL: 'ftp://x' },
      'SIGIL_RPC_URL',
      'invalid configuration: SIGIL_RPC_URL must be an http(s) URL (got "ftp://x")',
    ],
    [
      { SIGIL_PUBLIC_URL: 'not a url' },
      'SIGIL_PUBLIC_URL',
      'invalid configuration: SIGIL_PUBLIC_URL must be an http(s) URL (got "not a url")',
    ],
    [
      { SIGIL_PROGRAM_ID: 'abc' },
      'SIGIL_PROGRAM_ID',
      'invalid configuration: SIGIL_PROGRAM_ID must be a base58 public key (32 bytes) (got "abc")',
    ],
    [
      { SIGIL_RPC_TIMEOUT_MS: '10' },
      'SIGIL_RPC_TIMEOUT_MS',
      'invalid configuration: SIGIL_RPC_TIMEOUT_MS must be at least 100 (got "10")',
    ],
    [
      { SIGIL_CHAIN_NAME: 'X 1' },
      'SIGIL_CHAIN_NAME',
      'invalid configuration: SIGIL_CHAIN_NAME must be lowercase a-z0-9- (got "X 1")',
    ],
    [
      { SIGIL_DOMAIN_SUFFIXES: 'x1,.bad' },
      'SIGIL_DOMAIN_SUFFIXES',
      'invalid configuration: SIGIL_DOMAIN_SUFFIXES each suffix must be 1-32 characters a-z0-9 (got "x1,.bad")',
    ],
    [
      { SIGIL_DOMAIN_SUFFIXES: ',,' },
      'SIGIL_DOMAIN_SUFFIXES',
      'invalid configuration: SIGIL_DOMAIN_SUFFIXES must list at least one suffix (got ",,")',
    ],
    [
      { SIGIL_SOL_RPC_URL: 'sol.example' },
      'SIGIL_SOL_RPC_URL',
      'invalid configuration: SIGIL_SOL_RPC_URL must be an http(s) URL (got "sol.example")',
    ],
    [
      { SIGIL_GATE_SIGNING_KEY: 'short' },
      'SIGIL_GATE_SIGNING_KEY',
      'invalid configuration: SIGIL_GATE_SIGNING_KEY must be a 32-byte Ed25519 seed in base64url (43 characters) (got "short")',
    ],
    [
      { DATABASE_URL: 'mysql://db' },
      'DATABASE_URL',
      'invalid configuration: DATABASE_URL must start with postgres://, postgresql:// or sqlite: (got "mysql://db")',
    ],
  ])('%j → ConfigError naming %s', (overrides, variable, message) => {
    const err = failure({ ...required, ...overrides });
    expect(err.variable).toBe(variable);
    expect(err.message).toBe(message);
    expect(err.message).not.toContain('\n');
  });

  it('never echoes more than 80 characters of a bad value', () => {
    expect(failure({ ...required, PORT: '9'.repeat(500) }).message.length).toBeLessThan(160);
  });
});

describe('paymentRails', () => {
  it('is empty until x402 is configured', () => {
    expect(paymentRails(testConfig())).toEqual([]);
  });
});
