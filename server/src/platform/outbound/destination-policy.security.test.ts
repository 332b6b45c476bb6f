// Hostile destinations driven through the PRODUCTION policy (allowLoopback off) with an injected resolver.
import { describe, expect, it } from 'vitest';
import {
  checkUrl,
  isAllowedAddress,
  isPublicAddress,
  resolveVetted,
  vetDestination,
  type ResolvedAddress,
  type Resolver,
} from './destination-policy';

/** A resolver answering from a fixed table; unknown names fail like getaddrinfo does. */
function tableResolver(table: Record<string, string[]>): Resolver {
  return async (hostname) => {
    const answers = table[hostname];
    if (!answers) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return answers.map((address): ResolvedAddress => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

// Literal addresses that must never be public.
const NON_PUBLIC_ADDRESSES = [
  // IPv4
  '0.0.0.0',
  '0.1.2.3', // 0.0.0.0/8
  '10.0.0.1',
  '10.255.255.255',
  '100.64.0.1', // CGNAT
  '100.127.255.254',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254', // cloud metadata
  '169.254.0.1',
  '172.16.0.1',
  '172.31.255.255',
  '192.0.0.8', // IETF protocol assignments
  '192.0.2.10', // TEST-NET-1
  '192.88.99.1', // 6to4 relay anycast
  '192.168.1.1',
  '198.18.0.1', // benchmarking
  '198.19.255.255',
  '198.51.100.7', // TEST-NET-2
  '203.0.113.9', // TEST-NET-3
  '224.0.0.1', // multicast
  '239.255.255.250',
  '240.0.0.1', // reserved
  '255.255.255.255', // broadcast
  // IPv6
  '::',
  '::1',
  'fe80::1', // link-local
  'febf:ffff::1',
  'fec0::1', // site-local
  'fc00::1', // unique-local
  'fd12:3456:789a::1',
  'fd00:ec2::254', // AWS metadata
  'ff02::1', // multicast
  'ff05::1:3',
  '2001:db8::1', // documentation
  '3fff::1', // documentation (RFC 9637)
  '100::1', // discard
  '2001:2::1', // benchmarking
  '2001::1', // Teredo
  '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo with a public-looking server
  '::ffff:127.0.0.1', // IPv4-mapped loopback
  '::ffff:7f00:1',
  '::ffff:169.254.169.254', // IPv4-mapped metadata
  '::ffff:10.0.0.1',
  '::ffff:0:7f00:1', // IPv4-translated (RFC 6145) loopback
  '::7f00:1', // IPv4-compatible (deprecated) loopback
  '::a00:1', // IPv4-compatible 10.0.0.1
  '64:ff9b::7f00:1', // NAT64 loopback
  '64:ff9b::a9fe:a9fe', // NAT64 169.254.169.254
  '64:ff9b::c0a8:101', // NAT64 192.168.1.1
  '64:ff9b:1::1', // local-use NAT64 prefix
  '64:ff9b:1:ffff::808:808', // local-use NAT64, even with a public-looking tail
  '2002:7f00:1::1', // 6to4 of 127.0.0.1
  '2002:a9fe:a9fe::1', // 6to4 of 169.254.169.254
  '2002:c0a8:101::', // 6to4 of 192.168.1.1
  '5f00::1', // segment routing
  '2001:10::1', // ORCHID
  // non-canonical text is refused outright
  '0x7f.0.0.1',
  '0177.0.0.1',
  '2130706433',
  '127.1',
  'fe80::1%eth0',
  'not-an-ip',
  '',
];

const PUBLIC_ADDRESSES = [
  '1.1.1.1',
  '8.8.8.8',
  '93.184.215.14',
  '100.63.255.255', // just below CGNAT
  '100.128.0.1', // just above CGNAT
  '172.15.255.255',
  '172.32.0.1',
  '198.17.255.255',
  '198.20.0.1',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '::ffff:8.8.8.8', // IPv4-mapped public
  '64:ff9b::808:808', // NAT64 of 8.8.8.8 (DNS64 networks)
  '2002:808:808::1', // 6to4 of 8.8.8.8
];

describe('isPublicAddress', () => {
  it.each(NON_PUBLIC_ADDRESSES)('refuses %j', (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
    expect(isAllowedAddress(ip)).toBe(false);
  });

  it.each(PUBLIC_ADDRESSES)('accepts %j', (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it('allowLoopback admits loopback only, nothing else private', () => {
    expect(isAllowedAddress('127.0.0.1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('::1', { allowLoopback: true })).toBe(true);
    expect(isAllowedAddress('::ffff:127.0.0.1', { allowLoopback: true })).toBe(true);
    for (const ip of ['10.0.0.1', '169.254.169.254', 'fd00:ec2::254', '0.0.0.0', '100.64.0.1', '::']) {
      expect(isAllowedAddress(ip, { allowLoopback: true })).toBe(false);
    }
  });
});

// URLs refused before any DNS lookup, with the reason the registration endpoint maps to a code.
const HOSTILE_URLS: Array<[string, 'invalid_url' | 'blocked_destination']> = [
  // scheme, port, credentials, syntax
  ['http://hooks.example.com/x', 'invalid_url'],
  ['ftp://hooks.example.com/x', 'invalid_url'],
  ['file:///etc/passwd', 'invalid_url'],
  ['gopher://hooks.example.com:70/_x', 'invalid_url'],
  ['https://hooks.example.com:8443/x', 'invalid_url'],
  ['https://hooks.example.com:80/x', 'invalid_url'],
  ['https://hooks.example.com:0/x', 'invalid_url'],
  ['https://user:pass@hooks.example.com/x', 'invalid_url'],
  ['https://user@hooks.example.com/x', 'invalid_url'],
  ['https://:pass@hooks.example.com/x', 'invalid_url'],
  ['https:///x', 'blocked_destination'], // WHATWG reads host "x": a single-label name
  ['not a url', 'invalid_url'],
  ['//hooks.example.com/x', 'invalid_url'],
  ['https://1.2.3.4.5/', 'invalid_url'],
  ['https://hooks.example.com./x', 'invalid_url'],
  ['https://-bad.example.com/x', 'invalid_url'],
  ['https://a..example.com/x', 'invalid_url'],
  // loopback / private literals in every spelling WHATWG normalizes to a dotted quad
  ['https://127.0.0.1/x', 'blocked_destination'],
  ['https://2130706433/x', 'blocked_destination'], // decimal
  ['https://0x7f.1/x', 'blocked_destination'], // hex, short form
  ['https://0x7f000001/x', 'blocked_destination'], // hex, one part
  ['https://017700000001/x', 'blocked_destination'], // octal
  ['https://0177.0.0.1/x', 'blocked_destination'], // octal first octet
  ['https://127.1/x', 'blocked_destination'], // short form
  ['https://%31%32%37.0.0.1/x', 'blocked_destination'], // percent-encoded
  ['https://１２７.０.０.１/x', 'blocked_destination'], // full-width digits
  ['https://127。0。0。1/x', 'blocked_destination'], // ideographic full stops
  ['https://0/x', 'blocked_destination'], // 0.0.0.0
  ['https://0.0.0.0/x', 'blocked_destination'],
  ['https://169.254.169.254/latest/meta-data/', 'blocked_destination'],
  ['https://2852039166/latest/meta-data/', 'blocked_destination'], // 169.254.169.254 in decimal
  ['https://0xa9.0xfe.0xa9.0xfe/', 'blocked_destination'], // 169.254.169.254 in hex
  ['https://10.1.2.3/x', 'blocked_destination'],
  ['https://192.168.0.1:443/x', 'blocked_destination'],
  ['https://100.100.100.200/x', 'blocked_destination'], // CGNAT (Alibaba metadata)
  ['https://255.255.255.255/x', 'blocked_destination'],
  ['https://[::1]/x', 'blocked_destination'],
  ['https://[::ffff:127.0.0.1]/x', 'blocked_destination'],
  ['https://[::ffff:a9fe:a9fe]/x', 'blocked_destination'],
  ['https://[fd00:ec2::254]/latest/meta-data/', 'blocked_destination'],
  ['https://[fe80::1]/x', 'blocked_destination'],
  ['https://[64:ff9b::7f00:1]/x', 'blocked_destination'],
  ['https://[2002:7f00:1::]/x', 'blocked_destination'],
  ['https://[::]/x', 'blocked_destination'],
  // private names
  ['https://localhost/x', 'blocked_destination'],
  ['https://api.localhost/x', 'blocked_destination'],
  ['https://metadata/computeMetadata/v1/', 'blocked_destination'],
  ['https://metadata.google.internal/computeMetadata/v1/', 'blocked_destination'],
  ['https://printer.local/x', 'blocked_destination'],
  ['https://router.home.arpa/x', 'blocked_destination'],
  ['https://1.0.0.127.in-addr.arpa/x', 'blocked_destination'],
  ['https://shop.test/x', 'blocked_destination'],
  ['https://intranet/x', 'blocked_destination'],
];

describe('checkUrl (production policy)', () => {
  it.each(HOSTILE_URLS)('refuses %s as %s', (url, reason) => {
    const verdict = checkUrl(url);
    expect(verdict.ok).toBe(false);
    if (!verdict.ok) expect(verdict.reason).toBe(reason);
  });

  it('accepts https names and public literals on 443, explicit or default', () => {
    for (const [url, host, ip] of [
      ['https://hooks.example.com/sigil?x=1', 'hooks.example.com', null],
      ['https://HOOKS.Example.COM:443/sigil', 'hooks.example.com', null],
      ['https://xn--bcher-kva.example/x'.replace('.example', '.com'), 'xn--bcher-kva.com', null],
      ['https://bücher.com/x', 'xn--bcher-kva.com', null],
      ['https://8.8.8.8/x', '8.8.8.8', '8.8.8.8'],
      ['https://134744072/x', '8.8.8.8', '8.8.8.8'], // decimal spelling of a public address is still that address
      ['https://[2606:4700:4700::1111]/x', '2606:4700:4700::1111', '2606:4700:4700::1111'],
    ] as const) {
      const verdict = checkUrl(url);
      expect(verdict, url).toMatchObject({ ok: true, host, ip });
    }
  });

  it('allowLoopback admits loopback on any port, and nothing else new', () => {
    expect(checkUrl('https://127.0.0.1:8443/x', { allowLoopback: true })).toMatchObject({ ok: true, ip: '127.0.0.1' });
    expect(checkUrl('https://localhost:8443/x', { allowLoopback: true })).toMatchObject({
      ok: true,
      host: 'localhost',
    });
    expect(checkUrl('https://[::1]:9/x', { allowLoopback: true })).toMatchObject({ ok: true, ip: '::1' });
    expect(checkUrl('https://hooks.example.com:8443/x', { allowLoopback: true })).toMatchObject({
      ok: false,
      reason: 'invalid_url',
    });
    expect(checkUrl('https://10.0.0.1/x', { allowLoopback: true })).toMatchObject({
      ok: false,
      reason: 'blocked_destination',
    });
    expect(checkUrl('http://127.0.0.1:8443/x', { allowLoopback: true })).toMatchObject({
      ok: false,
      reason: 'invalid_url',
    });
  });
});

describe('DNS answers (production policy, injected resolver)', () => {
  const resolver = tableResolver({
    'good.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    'loopback.example.com': ['127.0.0.1'],
    'metadata.example.com': ['169.254.169.254'],
    'aws6.example.com': ['fd00:ec2::254'],
    'mixed.example.com': ['93.184.215.14', '10.0.0.5'],
    'mixed-last.example.com': ['8.8.8.8', '1.1.1.1', '::1'],
    'mixed6.example.com': ['2606:4700::1', 'fe80::1'],
    'mapped.example.com': ['::ffff:192.168.0.1'],
    'nat64.example.com': ['64:ff9b::a9fe:a9fe'],
    'sixtofour.example.com': ['2002:0a00:0001::1'],
    'cgnat.example.com': ['100.64.1.1'],
    'zero.example.com': ['0.0.0.0'],
    'bench.example.com': ['198.18.0.1'],
    'weird.example.com': ['0x7f.1'],
    'empty.example.com': [],
    '127.0.0.1.nip.io': ['127.0.0.1'],
  });

  it('accepts a name whose every answer is public', async () => {
    await expect(vetDestination('https://good.example.com/h', resolver)).resolves.toMatchObject({
      ok: true,
      addresses: [
        { address: '93.184.215.14', family: 4 },
        { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 },
      ],
    });
  });

  it.each([
    'loopback.example.com',
    'metadata.example.com',
    'aws6.example.com',
    'mixed.example.com',
    'mixed-last.example.com',
    'mixed6.example.com',
    'mapped.example.com',
    'nat64.example.com',
    'sixtofour.example.com',
    'cgnat.example.com',
    'zero.example.com',
    'bench.example.com',
    'weird.example.com',
    '127.0.0.1.nip.io',
  ])('refuses %s: one non-public answer taints the name', async (host) => {
    await expect(vetDestination(`https://${host}/h`, resolver)).resolves.toMatchObject({
      ok: false,
      reason: 'blocked_destination',
    });
    await expect(resolveVetted(host, resolver)).rejects.toMatchObject({ kind: 'blocked_destination' });
  });

  it('reports names that do not resolve as dns_failed', async () => {
    await expect(vetDestination('https://nowhere.example.com/h', resolver)).resolves.toMatchObject({
      ok: false,
      reason: 'dns_failed',
    });
    await expect(vetDestination('https://empty.example.com/h', resolver)).resolves.toMatchObject({
      ok: false,
      reason: 'dns_failed',
    });
  });

  it('never asks the resolver about a URL the static rules refuse, nor about IP literals', async () => {
    const asked: string[] = [];
    const spy: Resolver = async (h) => {
      asked.push(h);
      return [{ address: '8.8.8.8', family: 4 }];
    };
    await vetDestination('https://localhost/x', spy);
    await vetDestination('http://good.example.com/x', spy);
    await expect(vetDestination('https://8.8.8.8/x', spy)).resolves.toMatchObject({ ok: true });
    expect(asked).toEqual([]);
  });
});
