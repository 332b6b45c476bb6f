import { describe, expect, it } from 'vitest';
import {
  classifyName,
  DEFAULT_DOMAIN_SUFFIXES,
  hasKnownSuffix,
  isBase58Address,
  isTopLevelHandle,
  matchesHandleGrammar,
  NAME_CLASS_ERRORS,
  normalizeName,
  parseDomain,
  parseHandle,
  type NameClassification,
} from './names';
import { PUBLIC_ERRORS } from './errors';

const h = (name: string): NameClassification => ({ kind: 'handle', name });
const d = (name: string, label: string, tld: string): NameClassification => ({ kind: 'domain', name, label, tld });
const amb = (name: string): NameClassification => ({ kind: 'ambiguous', name });
const badHandle: NameClassification = { kind: 'invalid-handle' };
const badDomain: NameClassification = { kind: 'invalid-domain' };

const a32 = 'a'.repeat(32);
const a33 = 'a'.repeat(33);

// [raw input, expected classification with the default suffixes x1/xnt/xen]
const TABLE: Array<[string, NameClassification]> = [
  // handles
  ['alice', h('alice')],
  ['@alice', h('alice')],
  ['@ALICE', h('alice')],
  ['Alice', h('alice')],
  ['a', h('a')],
  ['@a', h('a')],
  ['alice_01', h('alice_01')],
  ['_', h('_')],
  ['007', h('007')],
  [a32, h(a32)],
  ['@' + a32, h(a32)], // the `@` does not count toward the 32 bytes
  ['x1', h('x1')], // a bare TLD word has no dot: a handle
  ['@xnt', h('xnt')],
  // subnames (dotted handles, no known suffix)
  ['shop.alice', h('shop.alice')],
  ['@Shop.Alice', h('shop.alice')],
  ['a.b.c', h('a.b.c')],
  ['alice.sol', h('alice.sol')], // `sol` is not a served suffix here
  ['@a.b.x1', h('a.b.x1')], // `@` + handle grammar; not a domain (two labels before the tld)
  ['@a_b.x1', h('a_b.x1')], // `_` is not allowed in domains
  // domains
  ['alice.x1', d('alice.x1', 'alice', 'x1')],
  ['ALICE.X1', d('alice.x1', 'alice', 'x1')],
  ['alice.xnt', d('alice.xnt', 'alice', 'xnt')],
  ['alice.xen', d('alice.xen', 'alice', 'xen')],
  ['sat-oshi.x1', d('sat-oshi.x1', 'sat-oshi', 'x1')],
  ['@sat-oshi.x1', d('sat-oshi.x1', 'sat-oshi', 'x1')], // not handle-shaped because of `-`
  ['a-b-c.xen', d('a-b-c.xen', 'a-b-c', 'xen')],
  ['0.x1', d('0.x1', '0', 'x1')],
  [a32 + '.x1', d(a32 + '.x1', a32, 'x1')],
  // ambiguous (409): `@` makes it handle-shaped, the suffix makes it domain-shaped
  ['@alice.x1', amb('alice.x1')],
  ['@ALICE.XNT', amb('alice.xnt')],
  ['@bob.xen', amb('bob.xen')],
  // invalid domains (known suffix, domain grammar fails, not handle-shaped)
  ['bad!.x1', badDomain],
  ['-a.x1', badDomain],
  ['a-.x1', badDomain],
  ['a.b.x1', badDomain],
  ['.x1', badDomain],
  ['a..x1', badDomain],
  ['a_b.x1', badDomain],
  [a33 + '.x1', badDomain],
  ['@-a.x1', badDomain],
  ['a b.x1', badDomain],
  // invalid handles
  ['', badHandle],
  ['@', badHandle],
  ['@@a', badHandle],
  ['a b', badHandle],
  [' alice', badHandle],
  ['alice\n', badHandle],
  ['ålice', badHandle],
  ['\u212Aelvin', badHandle], // Kelvin sign: String#toLowerCase would fold it to `k`
  ['İstanbul', badHandle], // U+0130 lowercases to `i` + combining dot
  [a33, badHandle],
  ['@' + a33, badHandle],
  ['a-b', badHandle], // `-` is domain-only
  ['a.', badHandle],
  ['.a', badHandle],
  ['a..b', badHandle],
  ['alice.x1.', badHandle], // last label is empty: no known suffix
  ['a@b', badHandle],
  ['alice%40', badHandle],
  ['alice/x1', badHandle],
];

describe('classifyName', () => {
  it('covers at least 40 inputs', () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(40);
  });

  it.each(TABLE)('%j', (input, expected) => {
    expect(classifyName(input)).toEqual(expected);
  });

  it('treats @ + 32-char label + suffix as a domain, not ambiguous: as a handle it would be 35 bytes', () => {
    expect(classifyName('@' + a32 + '.x1')).toEqual(d(a32 + '.x1', a32, 'x1'));
  });

  it('honours a deployment suffix list', () => {
    const suffixes = ['x1', 'sol'];
    expect(classifyName('alice.sol', suffixes)).toEqual(d('alice.sol', 'alice', 'sol'));
    expect(classifyName('@alice.sol', suffixes)).toEqual(amb('alice.sol'));
    expect(classifyName('alice.xnt', suffixes)).toEqual(h('alice.xnt'));
    expect(classifyName('a.b.sol', suffixes)).toEqual(badDomain);
  });
});

describe('helpers', () => {
  it('normalizeName strips exactly one @ and lowercases ASCII only', () => {
    expect(normalizeName('@AbC')).toEqual({ name: 'abc', hadAt: true });
    expect(normalizeName('@@a')).toEqual({ name: '@a', hadAt: true });
    expect(normalizeName('ÅB')).toEqual({ name: 'Åb', hadAt: false });
    expect(normalizeName('')).toEqual({ name: '', hadAt: false });
  });

  it('hasKnownSuffix needs a dot and a served last label', () => {
    expect(hasKnownSuffix('x1')).toBe(false);
    expect(hasKnownSuffix('a.x1')).toBe(true);
    expect(hasKnownSuffix('a.b.xen')).toBe(true);
    expect(hasKnownSuffix('a.sol')).toBe(false);
    expect(hasKnownSuffix('a.sol', ['sol'])).toBe(true);
    expect(DEFAULT_DOMAIN_SUFFIXES).toEqual(['x1', 'xnt', 'xen']);
  });

  it('matchesHandleGrammar and parseDomain work on normalized names', () => {
    expect(matchesHandleGrammar('Alice')).toBe(false);
    expect(matchesHandleGrammar('shop.alice')).toBe(true);
    expect(parseDomain('alice.x1')).toEqual({ label: 'alice', tld: 'x1' });
    expect(parseDomain('alice.sol')).toBeNull();
  });

  it('parseHandle returns only handles', () => {
    expect(parseHandle('@Alice')).toBe('alice');
    expect(parseHandle('shop.alice')).toBe('shop.alice');
    expect(parseHandle('alice.x1')).toBeNull();
    expect(parseHandle('@alice.x1')).toBeNull();
    expect(parseHandle('a b')).toBeNull();
  });

  it('isTopLevelHandle accepts only undotted normalized handles', () => {
    expect(isTopLevelHandle('alice')).toBe(true);
    expect(isTopLevelHandle('a_1')).toBe(true);
    expect(isTopLevelHandle('shop.alice')).toBe(false);
    expect(isTopLevelHandle('@alice')).toBe(false);
    expect(isTopLevelHandle('Alice')).toBe(false);
    expect(isTopLevelHandle('')).toBe(false);
    expect(isTopLevelHandle(a33)).toBe(false);
  });

  it('maps refused classes to the public error catalog', () => {
    expect(PUBLIC_ERRORS[NAME_CLASS_ERRORS.ambiguous]).toEqual([409, 'ambiguous: both a handle and a domain shape']);
    expect(PUBLIC_ERRORS[NAME_CLASS_ERRORS['invalid-handle']]).toEqual([400, 'invalid handle']);
    expect(PUBLIC_ERRORS[NAME_CLASS_ERRORS['invalid-domain']]).toEqual([400, 'invalid domain']);
  });
});

describe('isBase58Address', () => {
  it.each([
    ['11111111111111111111111111111111', true], // system program: 32 zero bytes
    ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', true],
    ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', true],
    ['So11111111111111111111111111111111111111112', true],
    ['', false],
    ['1111111111111111111111111111111', false], // 31 zero bytes
    ['111111111111111111111111111111111', false], // 33 zero bytes
    ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5D0', false], // `0` is not base58
    ['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5Dl', false], // `l` is not base58
    ['zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz', false], // 44 chars, more than 32 bytes
    ['3yZe7d', false],
    [' TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', false],
    ['x'.repeat(10_000), false],
  ])('%j → %s', (input, expected) => {
    expect(isBase58Address(input)).toBe(expected);
  });
});
