import { describe, expect, it } from 'vitest';
import { loadMcpConfig, McpConfigErrors } from './config';

const required = {
  SIGIL_RPC_URL: 'http://127.0.0.1:8899',
  SIGIL_PROGRAM_ID: 'SigiLRegistry111111111111111111111111111111',
};

describe('loadMcpConfig', () => {
  it('defaults: the service at 127.0.0.1:8787, bind 0.0.0.0:8696, no query API', () => {
    const config = loadMcpConfig(required);
    expect(config.apiUrl).toBe('http://127.0.0.1:8787');
    expect(config.bind).toEqual({ host: '0.0.0.0', port: 8696 });
    expect(config.queryApiUrl).toBeUndefined();
  });

  it('reads every variable; trailing slashes dropped; IPv6 bind', () => {
    const config = loadMcpConfig({
      ...required,
      SIGIL_API_URL: 'https://api.example/',
      SIGIL_QUERY_API_URL: 'https://q.example//',
      MCP_BIND: '[::1]:9000',
      MCP_ALLOWED_HOSTS: 'MCP.Example, other.example',
    });
    expect(config).toMatchObject({
      apiUrl: 'https://api.example',
      queryApiUrl: 'https://q.example',
      bind: { host: '::1', port: 9000 },
      allowedHosts: ['mcp.example', 'other.example'],
    });
  });

  it('one error per bad variable, each naming it', () => {
    let caught: unknown;
    try {
      loadMcpConfig({ SIGIL_PROGRAM_ID: 'nope', MCP_BIND: '8696', SIGIL_API_URL: 'ftp://x' });
    } catch (err) {
      caught = err;
    }
    expect(caught).toBeInstanceOf(McpConfigErrors);
    const lines = (caught as McpConfigErrors).errors.map((e) => e.message);
    expect(lines).toEqual([
      'invalid configuration: SIGIL_RPC_URL is required',
      'invalid configuration: SIGIL_PROGRAM_ID must be a base58 public key (32 bytes) (got "nope")',
      'invalid configuration: SIGIL_API_URL must be an http(s) URL (got "ftp://x")',
      'invalid configuration: MCP_BIND must be host:port (e.g. 0.0.0.0:8696 or [::1]:8696) (got "8696")',
    ]);
  });

  it('loopback outbound is refused in production', () => {
    expect(() => loadMcpConfig({ ...required, NODE_ENV: 'production', SIGIL_OUTBOUND_ALLOW_LOOPBACK: 'true' })).toThrow(
      /SIGIL_OUTBOUND_ALLOW_LOOPBACK/,
    );
  });
});
