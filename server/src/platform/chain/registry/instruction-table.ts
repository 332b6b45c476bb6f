// Registry instructions are interpreted by tables, one per concern (event derivation, the emulator's effects): a row
// per instruction name, each a small function. The table's type lists every name of the instruction union, so a new
// instruction does not compile until each concern has its row; the rows live in one module per instruction family.

/** One row per instruction name of `U`: called with the concern's context `A` and the decoded instruction. */
export type InstructionTable<U extends { name: string }, A extends unknown[], R> = {
  readonly [N in U['name']]: (...args: [...A, Extract<U, { name: N }>]) => R;
};

/** The rows of some instructions of `U` (one family's module); `joinFamilies` makes the whole table of them. */
export type InstructionRows<U extends { name: string }, A extends unknown[], R> = Partial<InstructionTable<U, A, R>>;

type Joined<F extends readonly object[]> = F extends readonly [infer H, ...infer T extends readonly object[]]
  ? H & Joined<T>
  : unknown;

/**
 * The families' rows as one table. An instruction with rows in two families is refused: spreading them would keep
 * one row silently and drop the other.
 */
export function joinFamilies<const F extends readonly object[]>(...families: F): Joined<F> {
  const table: Record<string, unknown> = {};
  for (const family of families) {
    for (const [name, row] of Object.entries(family)) {
      if (Object.hasOwn(table, name)) throw new Error(`instruction ${name} has rows in two families`);
      table[name] = row;
    }
  }
  return table as Joined<F>;
}

/** Runs the row of `ix.name`. */
export function dispatchInstruction<U extends { name: string }, A extends unknown[], R>(
  table: InstructionTable<U, A, R>,
  ix: U,
  ...context: A
): R {
  const row = table[ix.name as U['name']] as (...args: [...A, U]) => R;
  return row(...context, ix);
}

/** The member of `U` named `N` (a row shared by two instructions takes the union of both). */
export type InstructionOf<U extends { name: string }, N extends U['name']> = Extract<U, { name: N }>;
