import { describe, expect, it } from 'vitest';
import { dispatchInstruction, joinFamilies, type InstructionTable } from './instruction-table';

type Ix = { name: 'a'; args: { n: number } } | { name: 'b'; args: { s: string } };

describe('instruction tables', () => {
  it('joins families into one table of all their rows', () => {
    const first = { a: () => 'row a' };
    const second = { b: () => 'row b' };
    const table = joinFamilies(first, second);
    expect(Object.keys(table)).toEqual(['a', 'b']);
    expect(table.a).toBe(first.a);
    expect(table.b).toBe(second.b);
  });

  it('refuses an instruction with rows in two families instead of keeping one silently', () => {
    expect(() => joinFamilies({ a: () => 1, b: () => 2 }, { c: () => 3 }, { b: () => 4 })).toThrow(
      'instruction b has rows in two families',
    );
  });

  it("runs the row of the instruction's name, with the context first and the instruction last", () => {
    const calls: string[] = [];
    const table: InstructionTable<Ix, [string, number], string> = {
      a: (who, at, ix) => (calls.push(`a:${who}:${at}:${ix.args.n}`), 'from a'),
      b: (who, at, ix) => (calls.push(`b:${who}:${at}:${ix.args.s}`), 'from b'),
    };
    expect(dispatchInstruction(table, { name: 'b', args: { s: 'x' } } as Ix, 'ctx', 7)).toBe('from b');
    expect(dispatchInstruction(table, { name: 'a', args: { n: 3 } } as Ix, 'ctx', 8)).toBe('from a');
    expect(calls).toEqual(['b:ctx:7:x', 'a:ctx:8:3']);
  });
});
