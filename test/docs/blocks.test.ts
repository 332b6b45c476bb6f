// The code blocks of the integrator-facing docs (test/docs/doc-blocks.ts): each has an info string, a not-runnable
// marker gives its reason, and every TypeScript/JavaScript block that is not marked type-checks against the real
// packages, in one program. The shell blocks run against `npm start`'s service in test/e2e/npm-start.e2e.test.ts.
import { describe, expect, it } from 'vitest';
import { compileBlocks, docBlocks, formProblem, markdownBlocks, tsxBlocks, type Block } from './doc-blocks';

const blocks = docBlocks();
const where = (block: Block) => `${block.file}:${block.line}`;
const checked = blocks.filter((b) => b.lang && b.lang !== 'sh' && b.notRunnable === undefined);

/** Sample blocks, as a doc would hold them: the first three must fail, the last must pass. */
const bad: Block = {
  file: 'docs/sdk.md',
  line: 10,
  info: 'ts',
  lang: 'ts',
  code: "import { createSigilClient } from '@sigil/sdk';\ncreateSigilClient({ baseUrl: 1 });",
};
// Not an entry of the package: only what the packed SDK exports resolves.
const internal: Block = { ...bad, file: 'README.md', code: "import { createSigilClient } from '@sigil/sdk/client';" };
// A relative import resolves from the block's doc (failing here), or from its dir= (passing).
const relative: Block = { ...bad, file: 'docs/mcp.md', code: "import type { ToolDeps } from './tool';" };
const placed: Block = { ...relative, dir: 'server/src/mcp' };
const SAMPLES = [bad, internal, relative, placed];

// One program for the samples and every doc block (the SDK, the server's sources the contributor docs show, and
// their packages' types): it is the test's cost.
let program: ReturnType<typeof compileBlocks> | undefined;
const compiled = () => (program ??= compileBlocks([...SAMPLES, ...checked]));

describe('the extraction', () => {
  it('reads fences, info strings and the marker just before a block', () => {
    const doc = [
      '# Doc',
      '',
      '```ts',
      'const a = 1;',
      '```',
      '',
      '<!-- not-runnable: deploys to production -->',
      '',
      '```sh',
      'npm run start:prod',
      '```',
      '',
      '<!-- not-runnable -->',
      '```bash',
      'rm -rf /',
      '```',
      '```ts dir=server/src/mcp',
      "import type { ToolDeps } from './tool';",
      '```',
      '- a list',
      '  ```json',
      '  {"a": 1}',
      '  ```',
      '```',
      'no info string',
      '```',
    ].join('\n');
    expect(markdownBlocks('doc.md', doc)).toEqual([
      { file: 'doc.md', line: 3, info: 'ts', lang: 'ts', code: 'const a = 1;', notRunnable: undefined },
      {
        file: 'doc.md',
        line: 9,
        info: 'sh',
        lang: 'sh',
        code: 'npm run start:prod',
        notRunnable: 'deploys to production',
      },
      { file: 'doc.md', line: 14, info: 'bash', lang: 'sh', code: 'rm -rf /', notRunnable: '' },
      {
        file: 'doc.md',
        line: 17,
        info: 'ts',
        lang: 'ts',
        code: "import type { ToolDeps } from './tool';",
        notRunnable: undefined,
        dir: 'server/src/mcp',
      },
      { file: 'doc.md', line: 21, info: 'json', lang: undefined, code: '{"a": 1}', notRunnable: undefined },
      { file: 'doc.md', line: 24, info: '', lang: undefined, code: 'no info string', notRunnable: undefined },
    ]);
  });

  it('reads the quickstart page form: <pre><code className="language-…"> with a template literal', () => {
    const page = [
      'export default function Page() {',
      '  const { apiBase } = config();',
      '  return (',
      '    <section>',
      '      {/* not-runnable: installs into your project */}',
      '      <pre>',
      '        <code className="language-sh">{`npm install sigil`}</code>',
      '      </pre>',
      '      <p>then</p>',
      '      <pre>',
      '        <code className="language-ts">{`const base = ${apiBase};`}</code>',
      '      </pre>',
      '      <pre>',
      '        <code>{`plain`}</code>',
      '      </pre>',
      '    </section>',
      '  );',
      '}',
    ].join('\n');
    expect(tsxBlocks('page.tsx', page)).toEqual([
      {
        file: 'page.tsx',
        line: 6,
        info: 'sh',
        lang: 'sh',
        code: 'npm install sigil',
        notRunnable: 'installs into your project',
      },
      {
        file: 'page.tsx',
        line: 10,
        info: 'ts',
        lang: 'ts',
        code: 'const base = http://127.0.0.1:8787;',
        notRunnable: undefined,
      },
      { file: 'page.tsx', line: 13, info: '', lang: undefined, code: 'plain', notRunnable: undefined },
    ]);
    expect(() =>
      tsxBlocks('page.tsx', 'const x = <pre><code className="language-ts">{`${other}`}</code></pre>;'),
    ).toThrow('page.tsx:1: no value for ${other}');
  });

  it('names form problems: a block without an info string, a marker without a reason', () => {
    const block: Block = { file: 'd.md', line: 1, info: 'sh', lang: 'sh', code: 'true' };
    expect(formProblem(block)).toBeUndefined();
    expect(formProblem({ ...block, info: '' })).toBe(
      'a code block without an info string (`text` for output or prose)',
    );
    expect(formProblem({ ...block, notRunnable: '' })).toBe('a not-runnable marker without a reason');
  });

  it('reports a block that does not type-check at its line in the doc', () => {
    expect(
      compiled()
        .filter((f) => SAMPLES.includes(f.block))
        .map((f) => f.message),
    ).toEqual([
      "docs/sdk.md:12: Type 'number' is not assignable to type 'string'.",
      "README.md:11: Cannot find module '@sigil/sdk/client' or its corresponding type declarations.",
      "docs/mcp.md:11: Cannot find module './tool' or its corresponding type declarations.",
    ]);
  }, 240_000);
});

describe('the docs', () => {
  it('finds the blocks of every doc, the quickstart included', () => {
    const files = new Set(blocks.filter((b) => b.lang).map((b) => b.file));
    for (const file of ['README.md', 'docs/sdk.md', 'client-sdk/README.md', 'web-portal/app/quickstart/page.tsx'])
      expect(files).toContain(file);
  });

  it('every block has an info string, and every not-runnable marker a reason', () => {
    expect(blocks.flatMap((b) => (formProblem(b) ? [`${where(b)}: ${formProblem(b)}`] : []))).toEqual([]);
  });

  it('every TypeScript/JavaScript block not marked type-checks against the real packages', () => {
    expect(checked.length).toBeGreaterThan(0);
    expect(
      compiled()
        .filter((f) => checked.includes(f.block))
        .map((f) => f.message),
    ).toEqual([]);
  }, 240_000);
});
