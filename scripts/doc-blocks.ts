// `npm run docs:blocks`: every TypeScript/JavaScript and shell block of the integrator-facing docs (README.md,
// docs/*.md, client-sdk/README.md), and what becomes of it. TS/JS blocks are type-checked against the repository's
// packages (each block a module of its own, placed inside the repository so that workspace and npm packages resolve);
// a block preceded by `<!-- not-runnable: reason -->` is listed with its reason and not checked. Shell blocks are
// listed (the `npm start` curl block is executed by test/e2e/npm-start.e2e.test.ts). Exit code 1 when a TS/JS block
// neither compiles nor is marked, so the report can gate a run once every block is fixed or marked.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const root = join(import.meta.dirname, '..');
const LANGS: Record<string, 'ts' | 'js' | 'sh'> = {
  ts: 'ts',
  typescript: 'ts',
  js: 'js',
  javascript: 'js',
  sh: 'sh',
  bash: 'sh',
  shell: 'sh',
};

interface Block {
  file: string;
  line: number;
  lang: 'ts' | 'js' | 'sh';
  code: string;
  notRunnable?: string;
}

/** The fenced blocks of one Markdown file, each with the not-runnable reason written just before it, if any. */
function blocksOf(file: string, text: string): Block[] {
  const blocks: Block[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^\s*```(\w+)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const end = lines.findIndex((l, j) => j > i && /^\s*```\s*$/.test(l));
    if (end < 0) break;
    const lang = LANGS[open[1]!.toLowerCase()];
    if (lang) {
      const before =
        lines
          .slice(0, i)
          .reverse()
          .find((l) => l.trim() !== '') ?? '';
      const marker = /<!--\s*not-runnable:\s*(.+?)\s*-->/.exec(before)?.[1];
      blocks.push({ file, line: i + 1, lang, code: lines.slice(i + 1, end).join('\n'), notRunnable: marker });
    }
    i = end;
  }
  return blocks;
}

function docFiles(): string[] {
  const docs = readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(root, 'docs', f));
  return [join(root, 'README.md'), ...docs, join(root, 'client-sdk', 'README.md')];
}

/** Type-checks the blocks as modules of their own; returns the first error of each failing block. */
function compile(blocks: Block[]): Map<Block, string> {
  const dir = join(root, 'test', '.doc-blocks');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const byFile = new Map<string, Block>();
  try {
    blocks.forEach((block, n) => {
      const path = join(dir, `block-${n}.${block.lang === 'js' ? 'mjs' : 'mts'}`);
      writeFileSync(path, `${block.code}\nexport {};\n`);
      byFile.set(path, block);
    });
    const program = ts.createProgram([...byFile.keys()], {
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      allowJs: true,
      checkJs: true,
      types: ['node'],
      // The published name of client-sdk/ (what the docs import) is its source here.
      paths: { '@sigil/sdk': ['./client-sdk/src/index.ts'], '@sigil/sdk/*': ['./client-sdk/src/*.ts'] },
      baseUrl: root,
      allowImportingTsExtensions: true,
    });
    const failures = new Map<Block, string>();
    for (const d of ts.getPreEmitDiagnostics(program)) {
      const block = d.file && byFile.get(d.file.fileName);
      if (!block || failures.has(block)) continue;
      const { line } = d.file!.getLineAndCharacterOfPosition(d.start ?? 0);
      failures.set(block, `line ${line + 1}: ${ts.flattenDiagnosticMessageText(d.messageText, ' ')}`);
    }
    return failures;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const blocks = docFiles().flatMap((file) => blocksOf(relative(root, file), readFileSync(file, 'utf8')));
const checked = blocks.filter((b) => b.lang !== 'sh' && !b.notRunnable);
const failures = compile(checked);
for (const block of blocks) {
  const where = `${block.file}:${block.line} (${block.lang})`;
  if (block.notRunnable) console.log(`skip  ${where}: not runnable: ${block.notRunnable}`);
  else if (block.lang === 'sh') console.log(`sh    ${where}`);
  else if (failures.has(block)) console.log(`FAIL  ${where}: ${failures.get(block)}`);
  else console.log(`ok    ${where}`);
}
console.log(
  `${checked.length - failures.size} compiled, ${failures.size} failed, ${blocks.length - checked.length} not checked`,
);
process.exitCode = failures.size > 0 ? 1 : 0;
