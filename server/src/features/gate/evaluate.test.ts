// Kleene truth tables of every combinator (null = could not be evaluated), and the reasons a policy reports.
import { describe, expect, it } from 'vitest';
import type { PolicyNode } from '@sigil/contract/gate';
import { all, any, atLeast, evaluatePolicy, not, type LeafOutcome, type Tri } from './evaluate';

const T = true;
const F = false;
const N = null;
const VALUES: Tri[] = [T, F, N];

describe('combinator truth tables', () => {
  it('not', () => {
    expect(VALUES.map(not)).toEqual([F, T, N]);
  });

  // Rows: [a, b, all, any]
  const table: [Tri, Tri, Tri, Tri][] = [
    [T, T, T, T],
    [T, F, F, T],
    [T, N, N, T],
    [F, T, F, T],
    [F, F, F, F],
    [F, N, F, N],
    [N, T, N, T],
    [N, F, F, N],
    [N, N, N, N],
  ];
  for (const [a, b, and, or] of table) {
    it(`all(${a}, ${b}) = ${and}; any(${a}, ${b}) = ${or}`, () => {
      expect(all([a, b])).toBe(and);
      expect(any([a, b])).toBe(or);
    });
  }

  // Rows: [n, children, result]
  const atLeastTable: [number, Tri[], Tri][] = [
    [2, [T, T, F], T],
    [2, [T, F, F], F],
    [2, [T, N, F], N],
    [2, [T, T, N], T],
    [2, [N, N, F], N],
    [2, [N, F, F], F],
    [1, [N], N],
    [3, [T, T, T], T],
    [3, [T, T, N], N],
    [3, [T, T, F], F],
  ];
  for (const [n, children, result] of atLeastTable) {
    it(`atLeast ${n} of [${children.join(', ')}] = ${result}`, () => expect(atLeast(n, children)).toBe(result));
  }
});

describe('evaluatePolicy', () => {
  const leaves: Record<string, LeafOutcome> = {
    yes: { result: true, evidence: { x: 1 }, expiresAt: 2000 },
    no: { result: false, evidence: {} },
    unknown: { result: null, evidence: {}, error: 'rpc unreachable' },
  };
  const leaf = (list: string[]) => ({ 'wallet.in': { list } }) as PolicyNode;
  const byList = async (_name: string, params: Record<string, unknown>) => leaves[(params.list as string[])[0]!]!;

  it('every node in document order with its JSON Pointer, evidence and error; expiries of true leaves', async () => {
    const policy: PolicyNode = {
      all: [
        leaf(['yes']),
        { any: [leaf(['no']), { not: leaf(['unknown']) }] },
        { atLeast: { n: 1, of: [leaf(['yes'])] } },
      ],
    };
    const { result, reasons, expiries } = await evaluatePolicy(policy, byList);
    expect(result).toBeNull();
    expect(reasons).toStrictEqual([
      { path: '/all', result: null, evidence: {} },
      { path: '/all/0/wallet.in', result: true, evidence: { x: 1 } },
      { path: '/all/1/any', result: null, evidence: {} },
      { path: '/all/1/any/0/wallet.in', result: false, evidence: {} },
      { path: '/all/1/any/1/not', result: null, evidence: {} },
      { path: '/all/1/any/1/not/wallet.in', result: null, evidence: {}, error: 'rpc unreachable' },
      { path: '/all/2/atLeast', result: true, evidence: {} },
      { path: '/all/2/atLeast/of/0/wallet.in', result: true, evidence: { x: 1 } },
    ]);
    expect(expiries).toEqual([2000, 2000]);
  });

  it('a null under `all` with a false sibling is decided (false); under `any` with a true sibling (true)', async () => {
    expect((await evaluatePolicy({ all: [leaf(['unknown']), leaf(['no'])] }, byList)).result).toBe(false);
    expect((await evaluatePolicy({ any: [leaf(['unknown']), leaf(['yes'])] }, byList)).result).toBe(true);
    expect((await evaluatePolicy({ not: { not: leaf(['unknown']) } }, byList)).result).toBeNull();
  });
});
