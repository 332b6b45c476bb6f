// `npm run count:sql [-- --max N] [paths…]`: every SQL call site of server/src outside query modules, listed by file
// and line, then counted per folder and in total. Found with the TypeScript compiler's type checker, so comments,
// strings, look-alike methods (tRPC's `.query`, `RegExp#exec`) and SQL inside query modules are not counted.
//
// A SQL call site is one of:
// - a Kysely query entry point called on a database or a transaction (the method is Kysely's own: `QueryCreator`,
//   `Kysely`, `Transaction`): `selectFrom`, `insertInto`, `updateTable`, `deleteFrom`, `replaceInto`, `mergeInto`,
//   `with`, `withRecursive`, `selectNoFrom`, `executeQuery`; and the schema builder `db.schema`;
// - Kysely's `sql` template tag (or `sql.raw`, `sql.ref`, `sql.lit`, `sql.join`, … — SQL text written by hand), whether
//   executed there (`sql\`…\`.execute(db)`) or built as a fragment for someone else to run: one site per statement
//   that holds such SQL text; in a statement that holds a builder entry point, it is part of that query;
// - a driver called directly: a `pg` pool or client's `query`, a `better-sqlite3` database's `prepare`, `exec` or
//   `pragma`.
// Not SQL: opening a transaction (`db.transaction()`): a service may decide that several query functions run as one
// unit, passing them the transaction.
//
// Where SQL belongs, so not counted:
// - query modules: a file named `queries.ts`, `<name>.queries.ts` or `<name>-queries.ts`, or any file in a
//   `queries/` folder. They take the db (or a transaction) first and export named query functions;
// - the data layer, server/src/platform/db/ (connect, migrate, migrations, lease, kv, durability): it is where the
//   database itself is opened, migrated and given its generic primitives;
// - tests (`*.test.ts`) and declaration files.
// With --max N it exits 1 when more than N sites remain. Paths (files or folders, from the repository root) narrow
// the count.
import { execFileSync } from 'node:child_process';
import { dirname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';

const ROOT = resolve(import.meta.dirname, '..');

export interface SqlSite {
  /** From the repository root. */
  file: string;
  /** 1-based. */
  line: number;
  /** What makes it SQL: `selectFrom`, `schema`, `sql`, `pg.query`, … */
  kind: string;
}

/** Kysely's query entry points, declared on `QueryCreator` (which `Kysely` and `Transaction` extend) or `Kysely`. */
const ENTRY_POINTS = new Set([
  'selectFrom',
  'insertInto',
  'updateTable',
  'deleteFrom',
  'replaceInto',
  'mergeInto',
  'with',
  'withRecursive',
  'selectNoFrom',
  'executeQuery',
]);
const KYSELY_OWNERS = new Set(['QueryCreator', 'Kysely', 'Transaction', 'ControlledTransaction']);
const DRIVER_METHODS: Record<string, Set<string>> = {
  pg: new Set(['query']),
  'better-sqlite3': new Set(['prepare', 'exec', 'pragma']),
};
const DRIVER_METHOD_NAMES = new Set(Object.values(DRIVER_METHODS).flatMap((names) => [...names]));

/** Whether a file (from the repository root) is a query module: SQL belongs there. */
export const isQueryModule = (file: string): boolean =>
  /(^|\/)queries\.ts$/.test(file) ||
  /[.-]queries\.ts$/.test(file) ||
  /(^|\/)queries\//.test(file.slice(0, file.lastIndexOf('/') + 1));

/** Whether a file is the data layer (the database itself: connect, migrate, migrations, lease, kv, durability). */
export const isDataLayer = (file: string): boolean => file.startsWith('server/src/platform/db/');

/** Whether a file's SQL is counted: server source, not a test or declaration, not a query module or the data layer. */
export const isCounted = (file: string): boolean =>
  /^server\/src\/.*\.tsx?$/.test(file) &&
  !/\.test\.tsx?$/.test(file) &&
  !file.endsWith('.d.ts') &&
  !isQueryModule(file) &&
  !isDataLayer(file);

/** The package a declaration comes from (`kysely`, `pg`, `better-sqlite3`), or undefined for our own code. */
function packageOf(declaration: ts.Declaration): string | undefined {
  const path = declaration.getSourceFile().fileName;
  const match = /\/node_modules\/(?:@types\/)?((?:@[^/]+\/)?[^/]+)\//.exec(path);
  if (match) return match[1] === 'better-sqlite3-napi' ? 'better-sqlite3' : match[1];
  // The project's own typing of the aliased better-sqlite3 build.
  if (path.endsWith('/better-sqlite3-napi.d.ts')) return 'better-sqlite3';
  return undefined;
}

function declarationsOf(checker: ts.TypeChecker, node: ts.Node): ts.Declaration[] {
  let symbol = checker.getSymbolAtLocation(node);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return symbol?.declarations ?? [];
}

/** The class or interface a member is declared in. */
const ownerName = (declaration: ts.Declaration): string | undefined => {
  const parent = declaration.parent;
  return parent && (ts.isClassDeclaration(parent) || ts.isInterfaceDeclaration(parent)) ? parent.name?.text : undefined;
};

const isKyselyMember = (checker: ts.TypeChecker, name: ts.Node, owners: Set<string>): boolean =>
  declarationsOf(checker, name).some((d) => packageOf(d) === 'kysely' && owners.has(ownerName(d) ?? ''));

/** Whether an expression is Kysely's `sql` tag (whatever it was imported as). */
const isSqlTag = (checker: ts.TypeChecker, node: ts.Node): boolean =>
  ts.isIdentifier(node) &&
  declarationsOf(checker, node).some(
    (d) => packageOf(d) === 'kysely' && ts.isVariableDeclaration(d) && d.name.getText() === 'sql',
  );

type Found = { node: ts.Node; kind: string; fragment: boolean };

function sitesIn(source: ts.SourceFile, checker: ts.TypeChecker): Found[] {
  const found: Found[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const { name, expression } = node.expression;
      if (ENTRY_POINTS.has(name.text) && isKyselyMember(checker, name, KYSELY_OWNERS)) {
        found.push({ node, kind: name.text, fragment: false });
      } else if (isSqlTag(checker, expression)) {
        found.push({ node, kind: `sql.${name.text}`, fragment: true });
      } else if (DRIVER_METHOD_NAMES.has(name.text)) {
        const driver = declarationsOf(checker, name)
          .map(packageOf)
          .find((p) => p !== undefined && DRIVER_METHODS[p]?.has(name.text));
        if (driver) found.push({ node, kind: `${driver}.${name.text}`, fragment: false });
      }
    } else if (ts.isPropertyAccessExpression(node) && node.name.text === 'schema') {
      if (isKyselyMember(checker, node.name, new Set(['Kysely'])))
        found.push({ node, kind: 'schema', fragment: false });
    } else if (ts.isTaggedTemplateExpression(node) && isSqlTag(checker, node.tag)) {
      found.push({ node, kind: 'sql', fragment: true });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  // Hand-written SQL counts once per statement, and only when the statement holds no builder entry point (then it is
  // a fragment of that query).
  const statementOf = (node: ts.Node): ts.Node => {
    let at: ts.Node = node;
    while (at.parent && !ts.isSourceFile(at.parent) && !isStatement(at)) at = at.parent;
    return at;
  };
  const within = (outer: ts.Node, inner: ts.Node) =>
    outer.getStart(source) <= inner.getStart(source) && inner.getEnd() <= outer.getEnd();
  const seen = new Set<ts.Node>();
  return found.filter((site) => {
    if (!site.fragment) return true;
    const statement = statementOf(site.node);
    if (seen.has(statement) || found.some((other) => !other.fragment && within(statement, other.node))) return false;
    seen.add(statement);
    return true;
  });
}

const isStatement = (node: ts.Node): boolean =>
  ts.isExpressionStatement(node) ||
  ts.isVariableStatement(node) ||
  ts.isReturnStatement(node) ||
  ts.isIfStatement(node) ||
  ts.isThrowStatement(node) ||
  ts.isForOfStatement(node) ||
  ts.isForStatement(node) ||
  ts.isWhileStatement(node) ||
  ts.isPropertyDeclaration(node) ||
  ts.isPropertyAssignment(node) ||
  ts.isExportAssignment(node);

/** The SQL call sites of the given files (absolute paths) of a program, outside query modules and the data layer. */
export function findSqlSites(program: ts.Program, files: string[]): SqlSite[] {
  const checker = program.getTypeChecker();
  const sites: SqlSite[] = [];
  for (const fileName of files) {
    const file = relative(ROOT, fileName);
    if (!isCounted(file)) continue;
    const source = program.getSourceFile(fileName);
    if (!source) throw new Error(`${file} is not part of the program`);
    for (const { node, kind } of sitesIn(source, checker)) {
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      sites.push({ file, line, kind });
    }
  }
  return sites.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line);
}

/** The repository's compiler options (tsconfig.json), so that `kysely`, `pg` and our aliases resolve as in the build. */
export function compilerOptions(): ts.CompilerOptions {
  const configPath = resolve(ROOT, 'tsconfig.json');
  const config = ts.readConfigFile(configPath, (p) => ts.sys.readFile(p));
  if (config.error) throw new Error(ts.flattenDiagnosticMessageText(config.error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config.config, ts.sys, dirname(configPath)).options;
}

/** The counted files git knows under the given paths (default server/src), absolute. */
export function serverFiles(paths: string[] = ['server/src']): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', ...paths], {
    cwd: ROOT,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return [...new Set(listed.split('\0'))].filter((f) => f && isCounted(f)).map((f) => resolve(ROOT, f));
}

/** The folder a site is counted under: the feature (server/src/features/x), else the first folder under src. */
export const folderOf = (file: string): string => {
  const parts = file.split('/');
  if (parts[2] === 'features' || parts[2] === 'platform') return parts.slice(0, 4).join('/');
  return parts.length > 3 ? parts.slice(0, 3).join('/') : file;
};

function main() {
  const argv = process.argv.slice(2);
  let max: number | null = null;
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--max') {
      max = Number(argv[++i]);
      if (!Number.isInteger(max) || max < 0) throw new Error('--max takes a whole number of sites');
    } else if (arg.startsWith('--')) throw new Error(`unknown option ${arg} (use --max N, paths)`);
    else paths.push(arg.replace(/\/+$/, ''));
  }
  const files = serverFiles(paths.length ? paths : undefined);
  const program = ts.createProgram(files, compilerOptions());
  const sites = findSqlSites(program, files);
  for (const s of sites) console.log(`  ${`${s.file}:${s.line}`.padEnd(72)} ${s.kind}`);
  const perFolder = new Map<string, number>();
  for (const s of sites) perFolder.set(folderOf(s.file), (perFolder.get(folderOf(s.file)) ?? 0) + 1);
  console.log('\nper folder:');
  for (const [folder, n] of [...perFolder].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])))
    console.log(`${String(n).padStart(6)}  ${folder}`);
  console.log(`\nSQL call sites outside query modules: ${sites.length} (in ${files.length} files counted)`);
  if (max !== null && sites.length > max) process.exitCode = 1;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    main();
  } catch (err) {
    console.error(`sql-sites: ${(err as Error).message}`);
    process.exitCode = 2;
  }
}
