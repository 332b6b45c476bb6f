// The code blocks of the integrator-facing docs: README.md, docs/*.md, client-sdk/README.md and the portal's
// quickstart page. test/docs/blocks.test.ts type-checks every TypeScript/JavaScript block; test/e2e/npm-start.e2e.test.ts
// runs every shell block against `npm start`'s service. The conventions (README.md, "Code blocks in the docs"):
// - Markdown: every fenced block has an info string; `ts`/`typescript`/`tsx`/`js`/`javascript` blocks are type-checked,
//   `sh`/`bash`/`shell` blocks are run, anything else (`json`, `text`, `http`, `sql`, …) is not code to run. A TS block
//   is a module of its own beside its doc (relative imports mean what relative links there mean), or in the folder
//   its info string names, as in ```` ```ts dir=server/src/features/resolve ```` for an excerpt of code there.
// - The portal quickstart: each `<pre>` holds a `<code className="language-…">` whose child is one template literal;
//   `${apiBase}` in it stands for the service's address (http://127.0.0.1:8787 under `npm start`).
// - A block that cannot run says why, just before it: `<!-- not-runnable: reason -->` in Markdown,
//   `{/* not-runnable: reason */}` in the quickstart. A marker without a reason is an error.
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import ts from 'typescript';
import { ENTRIES } from '../../client-sdk/scripts/manifest';

export const ROOT = join(import.meta.dirname, '../..');

export type Lang = 'ts' | 'tsx' | 'js' | 'sh';
const LANGS: Record<string, Lang> = {
  ts: 'ts',
  typescript: 'ts',
  tsx: 'tsx',
  js: 'js',
  javascript: 'js',
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
};

export interface Block {
  /** Repository-relative path of the doc. */
  file: string;
  /** 1-based line of the opening fence (or of the quickstart's `<code>`). */
  line: number;
  /** The info string as written (`ts`, `json`, … ; '' when missing). */
  info: string;
  /** What the block is checked as; undefined for blocks that are not code to run (json, text, …). */
  lang?: Lang;
  code: string;
  /** The repository folder a TS/JS block's relative imports resolve from (`dir=` in the info string). */
  dir?: string;
  /** The reason of a `not-runnable` marker just before the block ('' when the marker gives none). */
  notRunnable?: string;
}

const MARKER = /not-runnable\b:?\s*(.*?)\s*(?:-->|\*\/)/;

/** The fenced blocks of one Markdown document. */
export function markdownBlocks(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^`\s]*)(.*)$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent, fence, info, attributes] = open;
    const dir = /(?:^|\s)dir=(\S+)/.exec(attributes!)?.[1];
    const close = new RegExp(`^\\s*${fence![0] === '`' ? '`' : '~'}{${fence!.length},}\\s*$`);
    let end = lines.findIndex((l, j) => j > i && close.test(l));
    if (end < 0) end = lines.length;
    const before = lines
      .slice(0, i)
      .reverse()
      .find((l) => l.trim() !== '');
    const marker = before?.includes('not-runnable') ? (MARKER.exec(before)?.[1] ?? '') : undefined;
    blocks.push({
      file,
      line: i + 1,
      info: info!,
      lang: LANGS[info!.toLowerCase()],
      code: lines
        .slice(i + 1, end)
        .map((l) => (l.startsWith(indent!) ? l.slice(indent!.length) : l))
        .join('\n'),
      notRunnable: marker,
      ...(dir ? { dir } : {}),
    });
    i = end;
  }
  return blocks;
}

/** What the quickstart's template literals interpolate, as the page renders them under `npm start`. */
const QUICKSTART_VALUES: Record<string, string> = { apiBase: 'http://127.0.0.1:8787' };

/** The `<pre><code className="language-…">{`…`}</code></pre>` blocks of a TSX page. */
export function tsxBlocks(file: string, text: string): Block[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const blocks: Block[] = [];
  const tagName = (node: ts.JsxElement) => node.openingElement.tagName.getText(source);
  const meaningful = (children: ts.NodeArray<ts.JsxChild>) =>
    children.filter((c) => !(ts.isJsxText(c) && c.containsOnlyTriviaWhiteSpaces));
  const visit = (node: ts.Node): void => {
    if (ts.isJsxElement(node) && tagName(node) === 'pre') {
      const { parent } = node;
      const siblings = ts.isJsxElement(parent) || ts.isJsxFragment(parent) ? meaningful(parent.children) : [];
      const previous = siblings[siblings.indexOf(node) - 1];
      const comment =
        previous && ts.isJsxExpression(previous) && !previous.expression ? previous.getText(source) : undefined;
      const marker = comment?.includes('not-runnable') ? (MARKER.exec(comment)?.[1] ?? '') : undefined;
      const [code, ...rest] = meaningful(node.children);
      const line = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const className =
        code && ts.isJsxElement(code) && tagName(code) === 'code'
          ? code.openingElement.attributes.properties.find(
              (p): p is ts.JsxAttribute => ts.isJsxAttribute(p) && p.name.getText(source) === 'className',
            )
          : undefined;
      const info =
        className?.initializer && ts.isStringLiteral(className.initializer)
          ? (/^language-(\S+)$/.exec(className.initializer.text)?.[1] ?? '')
          : '';
      const body = code && ts.isJsxElement(code) ? meaningful(code.children) : [];
      const literal =
        rest.length === 0 && body.length === 1 && ts.isJsxExpression(body[0]!) ? body[0].expression : undefined;
      let text: string;
      if (literal && ts.isNoSubstitutionTemplateLiteral(literal)) text = literal.text;
      else if (literal && ts.isTemplateExpression(literal))
        text =
          literal.head.text +
          literal.templateSpans
            .map((span) => {
              const name = span.expression.getText(source);
              if (!(name in QUICKSTART_VALUES)) throw new Error(`${file}:${line}: no value for \${${name}}`);
              return QUICKSTART_VALUES[name] + span.literal.text;
            })
            .join('');
      else
        throw new Error(`${file}:${line}: a <pre> holds one <code className="language-…"> with one template literal`);
      blocks.push({ file, line, info, lang: LANGS[info.toLowerCase()], code: text, notRunnable: marker });
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return blocks;
}

/** The documents whose blocks are checked. */
export function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => `docs/${f}`);
  return ['README.md', ...docs, 'client-sdk/README.md', 'web-portal/app/quickstart/page.tsx'];
}

export function docBlocks(): Block[] {
  return docFiles().flatMap((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    return file.endsWith('.tsx') ? tsxBlocks(file, text) : markdownBlocks(file, text);
  });
}

/** What is wrong with a block's form (no info string, a marker without a reason); undefined when nothing. */
export function formProblem(block: Block): string | undefined {
  if (block.info === '') return 'a code block without an info string (`text` for output or prose)';
  if (block.notRunnable === '') return 'a not-runnable marker without a reason';
  return undefined;
}

/**
 * Names a doc's TypeScript blocks use without defining them, declared per doc (so that the blocks stay what a reader
 * copies): values the surrounding prose introduces, such as an already built client. A block gets the declarations
 * of the names it does not declare itself. Declarations only: a block still fails on anything it gets wrong about
 * the real packages.
 */
export const PREAMBLES: Record<string, Record<string, string>> = {
  'docs/data.md': {
    db: "declare const db: import('kysely').Kysely<import('../server/src/platform/db/index').Database>;",
    now: 'declare const now: number; // epoch ms',
    nonce: 'declare const nonce: string;',
  },
  'docs/local-chain.md': {
    signedTx: "declare const signedTx: import('@solana/kit').Transaction; // a signed transaction",
    someAddress: 'declare const someAddress: string; // an account address',
  },
  'docs/oidc.md': {
    ISSUER: 'declare const ISSUER: string; // the service, e.g. https://sigil.example',
    CLIENT_ID: 'declare const CLIENT_ID: string; // your API key id, key_…',
    CLIENT_SECRET: 'declare const CLIENT_SECRET: string; // sigil_cs_…',
    REDIRECT_URI: 'declare const REDIRECT_URI: string;',
    callbackUrl: 'declare const callbackUrl: URL; // the request URL the browser came back with',
    sessionToken: 'declare const sessionToken: string; // a Connect session token (POST /v1/auth/verify)',
    KEY_ID: 'declare const KEY_ID: string; // your API key id, key_…',
  },
  'docs/x402.md': {
    signer: "declare const signer: import('@solana/kit').KeyPairSigner; // the paying wallet",
    base58SecretKey: 'declare const base58SecretKey: string;',
  },
  'client-sdk/README.md': {
    alreadyProcessed: 'declare function alreadyProcessed(eventId: string): Promise<boolean>; // your store',
    enqueue: 'declare function enqueue(event: unknown): Promise<void>; // your queue',
  },
  'docs/sdk.md': {
    sigil: "declare const sigil: import('@sigil/sdk').SigilClient; // createSigilClient(…), as in the quickstart",
    token: 'declare const token: string; // a portal session token',
    address: 'declare const address: string; // a wallet address',
    payer: "declare const payer: import('@solana/kit').KeyPairSigner; // the wallet that pays",
  },
};

/** The names a module declares at its top level (imports, variables, functions, classes, types). */
function topLevelNames(code: string): Set<string> {
  const source = ts.createSourceFile('block.tsx', code, ts.ScriptTarget.Latest, false, ts.ScriptKind.TSX);
  const names = new Set<string>();
  const bind = (name: ts.BindingName): void => {
    if (ts.isIdentifier(name)) names.add(name.text);
    else for (const element of name.elements) if (!ts.isOmittedExpression(element)) bind(element.name);
  };
  for (const statement of source.statements) {
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations) bind(declaration.name);
    else if (ts.isImportDeclaration(statement) && statement.importClause) {
      const { name, namedBindings } = statement.importClause;
      if (name) names.add(name.text);
      if (namedBindings && ts.isNamespaceImport(namedBindings)) names.add(namedBindings.name.text);
      else if (namedBindings) for (const element of namedBindings.elements) names.add(element.name.text);
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement)) &&
      statement.name
    )
      names.add(statement.name.text);
  }
  return names;
}

export interface CompileFailure {
  block: Block;
  /** `file:line: message`, the line being the doc's. */
  message: string;
}

/**
 * Type-checks the TS/JS blocks in one program, each block a module of its own (its doc's preamble first), against
 * the real packages: `@sigil/sdk` and its subpaths are exactly the entries the packed SDK exports (client-sdk's
 * sources, which its declarations are built from; test/sdk/tarball.test.ts checks the built package), any other
 * import resolves from the repository's node_modules like a consumer's. The blocks exist in memory only.
 */
export function compileBlocks(blocks: Block[]): CompileFailure[] {
  const virtual = new Map<string, { block: Block; text: string; offset: number }>();
  blocks.forEach((block, n) => {
    const extension = { ts: 'mts', tsx: 'tsx', js: 'mjs', sh: '' }[block.lang!];
    const own = topLevelNames(block.code);
    const preamble = Object.entries(PREAMBLES[block.file] ?? {})
      .filter(([name]) => !own.has(name))
      .map(([, declaration]) => declaration)
      .join('\n');
    const offset = preamble ? preamble.split('\n').length : 0;
    // Beside its doc, so that a relative import means what a relative link there means; module resolution walks up
    // from that folder to the repository's node_modules.
    const path = join(ROOT, block.dir ?? dirname(block.file), `doc-block-${n}.${extension}`);
    virtual.set(path, { block, text: `${preamble}${preamble ? '\n' : ''}${block.code}\nexport {};\n`, offset });
  });
  const options: ts.CompilerOptions = {
    // A bundler's resolution (Next.js, Vite, esbuild), which also reads the SDK's sources as its build does.
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    esModuleInterop: true,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts', 'lib.dom.d.ts'],
    jsx: ts.JsxEmit.ReactJSX,
    strict: true,
    noEmit: true,
    skipLibCheck: true,
    allowJs: true,
    checkJs: true,
    types: ['node'],
    allowImportingTsExtensions: true,
    baseUrl: ROOT,
    paths: Object.fromEntries(
      ENTRIES.map((entry) => [
        entry === 'index' ? '@sigil/sdk' : `@sigil/sdk/${entry}`,
        [`client-sdk/src/${entry}.ts`],
      ]),
    ),
  };
  const host = ts.createCompilerHost(options);
  const { getSourceFile, fileExists, readFile } = host;
  host.fileExists = (name) => virtual.has(name) || fileExists.call(host, name);
  host.readFile = (name) => virtual.get(name)?.text ?? readFile.call(host, name);
  host.getSourceFile = (name, version, ...rest) => {
    const own = virtual.get(name);
    return own ? ts.createSourceFile(name, own.text, version, true) : getSourceFile.call(host, name, version, ...rest);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const failures: CompileFailure[] = [];
  for (const d of ts.getPreEmitDiagnostics(program)) {
    const own = d.file && virtual.get(d.file.fileName);
    // A block's first error is enough to find it; the rest are often that error's echoes.
    if (!own || failures.some((f) => f.block === own.block)) continue;
    const line = d.file!.getLineAndCharacterOfPosition(d.start ?? 0).line - own.offset;
    const where = line < 0 ? `${own.block.file} (preamble)` : `${own.block.file}:${own.block.line + 1 + line}`;
    failures.push({ block: own.block, message: `${where}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}` });
  }
  return failures.sort((a, b) => blocks.indexOf(a.block) - blocks.indexOf(b.block));
}

/** The addresses `npm start` serves on by default, as the docs write them. */
const NPM_START_ADDRESSES = {
  service: 'http://127.0.0.1:8787',
  chain: 'http://127.0.0.1:8899',
  mcp: 'http://127.0.0.1:8696',
} as const;

export interface ShellRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a shell block as a reader pastes it into bash, against an `npm start` whose addresses (the docs write the
 * defaults) are `addresses`, in `cwd` (a folder whose data/ is that start's data folder, as the repository's is),
 * with `env` besides PATH (SIGIL_API_KEY: a key the docs tell the reader to export). Every line must succeed
 * (`set -euo pipefail`), and curl fails on an HTTP error status (`--fail-with-body`), so a 4xx is a failure too.
 */
export function runShellBlock(
  block: Block,
  options: { addresses: Record<keyof typeof NPM_START_ADDRESSES, string>; cwd: string; env: Record<string, string> },
): ShellRun {
  let code = block.code;
  for (const [name, address] of Object.entries(NPM_START_ADDRESSES))
    code = code.replaceAll(address, options.addresses[name as keyof typeof NPM_START_ADDRESSES]);
  const script = `set -euo pipefail\ncurl() { command curl --fail-with-body --max-time 20 "$@"; }\n${code}\n`;
  const run = spawnSync('bash', ['-c', script], {
    cwd: options.cwd,
    env: { PATH: process.env.PATH!, HOME: process.env.HOME ?? options.cwd, ...options.env },
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}
