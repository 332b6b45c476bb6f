// Where the service may send an outbound HTTP request (webhook deliveries, agent manifest fetches):
// https on port 443 to a sane host name or a public IP literal, and every address the name resolves to must be
// public. See docs/outbound.md. The same rules run at webhook registration and on every connection.
import { lookup as dnsLookup } from 'node:dns/promises';
import ipaddr from 'ipaddr.js';

type IPv4 = ipaddr.IPv4;
type IPv6 = ipaddr.IPv6;

export interface ResolvedAddress {
  address: string;
  family: 4 | 6;
}

/** Name → every address it resolves to. Injected in tests; production uses the system resolver. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

/** getaddrinfo (honours /etc/hosts like every other program on the host), all answers, in resolver order. */
export const systemResolver: Resolver = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, order: 'verbatim' });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface PolicyOptions {
  /**
   * Local development and tests only: also allow loopback addresses (and any port on them). Refused in
   * production by createOutboundClient.
   */
  allowLoopback?: boolean;
}

// Belt and braces over ipaddr.js's range(): these IPv4 networks are never public, whatever a future version
// of the library calls them.
const V4_NEVER_PUBLIC = [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // CGNAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, incl. the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // TEST-NET-1
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // TEST-NET-2
  ['203.0.113.0', 24], // TEST-NET-3
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, incl. broadcast 255.255.255.255
] as const;
const V4_DENY = V4_NEVER_PUBLIC.map(([a, bits]) => [ipaddr.IPv4.parse(a), bits] as [IPv4, number]);

const V6_GLOBAL_UNICAST: [IPv6, number] = [ipaddr.IPv6.parse('2000::'), 3];
const V6_NAT64_WELL_KNOWN: [IPv6, number] = [ipaddr.IPv6.parse('64:ff9b::'), 96];
const V6_DENY: ReadonlyArray<[IPv6, number]> = (
  [
    ['2001::', 23], // IETF protocol assignments, incl. Teredo 2001::/32 (its embedded addresses are obfuscated)
    ['2001:db8::', 32], // documentation
    ['3fff::', 20], // documentation
    ['fc00::', 7], // unique-local, incl. the AWS metadata address fd00:ec2::254
    ['fe80::', 10], // link-local
    ['fec0::', 10], // site-local (deprecated)
    ['ff00::', 8], // multicast
  ] as const
).map(([a, bits]) => [ipaddr.IPv6.parse(a), bits] as [IPv6, number]);

function isPublicV4(a: IPv4): boolean {
  if (a.range() !== 'unicast') return false;
  return !V4_DENY.some(([net, bits]) => a.match(net, bits));
}

/** The IPv4 address carried in the low 32 bits of an IPv6 address. */
function low32(a: IPv6): IPv4 {
  const p = a.parts;
  return new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
}

function isPublicV6(a: IPv6): boolean {
  switch (a.range()) {
    // Forms that carry an IPv4 address: they are as public as the address inside.
    case 'ipv4Mapped': // ::ffff:a.b.c.d
    case 'rfc6145': // ::ffff:0:a.b.c.d (IPv4-translated)
      return isPublicV4(low32(a));
    case 'rfc6052': // NAT64: 64:ff9b::/96 embeds the IPv4; 64:ff9b:1::/48 is operator-local, never public
      return a.match(...V6_NAT64_WELL_KNOWN) && isPublicV4(low32(a));
    case '6to4': {
      // 2002:AABB:CCDD::/48 → AA.BB.CC.DD
      const p = a.parts;
      return isPublicV4(new ipaddr.IPv4([p[1]! >> 8, p[1]! & 0xff, p[2]! >> 8, p[2]! & 0xff]));
    }
    case 'unicast':
      break;
    default:
      return false; // loopback, unspecified, link-local, unique-local, multicast, teredo, reserved, discard, …
  }
  // Only 2000::/3 is allocated as global unicast: this refuses e.g. IPv4-compatible ::7f00:1, which ipaddr.js
  // reports as plain unicast.
  if (!a.match(...V6_GLOBAL_UNICAST)) return false;
  return !V6_DENY.some(([net, bits]) => a.match(net, bits));
}

/** Parses a canonical IP text (dotted-quad IPv4 or IPv6 without zone); anything else is null. */
export function parseIp(ip: string): IPv4 | IPv6 | null {
  // Only canonical dotted quads: ipaddr.js would also read "0x7f.1" or "0177.0.0.1"; such text here means the
  // caller skipped URL normalization, and refusing is the safe answer.
  if (ipaddr.IPv4.isValidFourPartDecimal(ip)) return ipaddr.IPv4.parse(ip);
  if (!ip.includes('%') && ipaddr.IPv6.isValid(ip)) return ipaddr.IPv6.parse(ip);
  return null;
}

/** True when the address is publicly routable unicast (IPv4, or IPv6 incl. the IPv4-carrying forms). */
export function isPublicAddress(ip: string): boolean {
  const a = parseIp(ip);
  if (!a) return false;
  return a.kind() === 'ipv4' ? isPublicV4(a as IPv4) : isPublicV6(a as IPv6);
}

function isLoopbackAddress(ip: string): boolean {
  const a = parseIp(ip);
  if (!a) return false;
  if (a.kind() === 'ipv4') return a.range() === 'loopback';
  const v6 = a as IPv6;
  return v6.range() === 'loopback' || (v6.isIPv4MappedAddress() && v6.toIPv4Address().range() === 'loopback');
}

/** The policy's verdict on one resolved or literal address. */
export function isAllowedAddress(ip: string, options: PolicyOptions = {}): boolean {
  return isPublicAddress(ip) || (options.allowLoopback === true && isLoopbackAddress(ip));
}

// Names that never denote a public web host (RFC 6761 / 6762 / 8375 special-use names and common private TLDs).
const PRIVATE_SUFFIXES = [
  'localhost',
  'local',
  'localdomain',
  'internal',
  'intranet',
  'lan',
  'home',
  'corp',
  'private',
  'home.arpa',
  'arpa',
  'test',
  'invalid',
  'example',
  'onion',
  'alt',
];

const LABEL = /^(?!-)[a-z0-9_-]{1,63}(?<!-)$/;

export type UrlRejection = 'invalid_url' | 'blocked_destination';

export type UrlCheck =
  | {
      ok: true;
      url: URL;
      /** The host to connect to: a DNS name, or a (public, or allowed loopback) IP literal without brackets. */
      host: string;
      /** The IP literal when the URL names one (no DNS lookup then), else null. */
      ip: string | null;
    }
  | { ok: false; reason: UrlRejection; message: string };

const invalid = (message: string): UrlCheck => ({ ok: false, reason: 'invalid_url', message });
const blocked = (message: string): UrlCheck => ({ ok: false, reason: 'blocked_destination', message });

/**
 * Static checks on a destination URL, before any DNS: https only; port 443 (explicit or default); no
 * credentials; host a sane DNS name or a public IP literal. The URL is parsed by WHATWG rules first, which
 * turns every IPv4 spelling (decimal `2130706433`, hex `0x7f.1`, octal `017700000001`, short `127.1`,
 * full-width digits, percent-encoding) into a dotted quad, so each is judged as the address it is.
 * `invalid_url` = malformed or not allowed by shape (→ INVALID_URL); `blocked_destination` = a non-public
 * address or private name (→ URL_REJECTED).
 */
export function checkUrl(input: string, options: PolicyOptions = {}): UrlCheck {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    return invalid('not a valid absolute URL');
  }
  if (url.protocol !== 'https:') return invalid('the URL must use https');
  if (url.username !== '' || url.password !== '') return invalid('the URL must not carry credentials');

  const hostname = url.hostname;
  const ipText = hostname.startsWith('[') ? hostname.slice(1, -1) : hostname;
  const ip = parseIp(ipText) ? ipText : null;
  const loopbackHost = ip ? isLoopbackAddress(ip) : hostname === 'localhost';
  // WHATWG drops a default port, so '' means 443 here.
  if (url.port !== '' && !(options.allowLoopback && loopbackHost)) return invalid('the URL must use port 443');

  if (ip) {
    if (!isAllowedAddress(ip, options)) return blocked(`${ipText} is not a public address`);
    return { ok: true, url, host: ipText, ip };
  }
  if (options.allowLoopback && hostname === 'localhost') return { ok: true, url, host: hostname, ip: null };

  if (hostname.length > 253) return invalid('host name too long');
  if (hostname.endsWith('.')) return invalid('host name must not end with a dot');
  const labels = hostname.split('.');
  if (labels.length < 2) return blocked('single-label host names are not public');
  if (!labels.every((l) => LABEL.test(l))) return invalid('host name has an invalid label');
  if (/^\d+$/.test(labels[labels.length - 1]!)) return invalid('host name has a numeric top-level label');
  const privateSuffix = PRIVATE_SUFFIXES.find((s) => hostname === s || hostname.endsWith(`.${s}`));
  if (privateSuffix) return blocked(`.${privateSuffix} names are not public`);
  return { ok: true, url, host: hostname, ip: null };
}

/** Why a name cannot be used. */
export class DestinationError extends Error {
  constructor(
    readonly kind: 'dns_failed' | 'blocked_destination',
    message: string,
  ) {
    super(message);
    this.name = 'DestinationError';
  }
}

/**
 * Resolves a host name and vets every answer: throws DestinationError `dns_failed` (no answer, resolver
 * error) or `blocked_destination` (ANY answer not allowed — one private answer taints the name, since the
 * peer could pick it). Returns the answers to connect to, in resolver order.
 */
export async function resolveVetted(
  hostname: string,
  resolver: Resolver,
  options: PolicyOptions = {},
): Promise<ResolvedAddress[]> {
  let answers: ResolvedAddress[];
  try {
    answers = await resolver(hostname);
  } catch (err) {
    const code = (err as { code?: string }).code;
    throw new DestinationError('dns_failed', `${hostname} did not resolve${code ? ` (${code})` : ''}`);
  }
  if (!Array.isArray(answers) || answers.length === 0) {
    throw new DestinationError('dns_failed', `${hostname} did not resolve`);
  }
  const bad = answers.find((a) => !isAllowedAddress(a.address, options));
  if (bad)
    throw new DestinationError(
      'blocked_destination',
      `${hostname} resolves to ${bad.address}, which is not a public address`,
    );
  return answers.map((a) => ({ address: a.address, family: parseIp(a.address)!.kind() === 'ipv6' ? 6 : 4 }));
}

export type DestinationVerdict =
  | { ok: true; url: URL; addresses: ResolvedAddress[] }
  | { ok: false; reason: UrlRejection | 'dns_failed'; message: string };

/**
 * The registration-time check: static URL rules, then resolution with every answer vetted. Map `invalid_url`
 * to INVALID_URL, and `blocked_destination` / `dns_failed` to URL_REJECTED.
 */
export async function vetDestination(
  input: string,
  resolver: Resolver = systemResolver,
  options: PolicyOptions = {},
): Promise<DestinationVerdict> {
  const check = checkUrl(input, options);
  if (!check.ok) return check;
  if (check.ip)
    return { ok: true, url: check.url, addresses: [{ address: check.ip, family: check.ip.includes(':') ? 6 : 4 }] };
  try {
    return { ok: true, url: check.url, addresses: await resolveVetted(check.host, resolver, options) };
  } catch (err) {
    if (err instanceof DestinationError) return { ok: false, reason: err.kind, message: err.message };
    throw err;
  }
}
