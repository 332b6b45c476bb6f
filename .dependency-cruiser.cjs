// @ts-check
// The layer rules (README, "Architecture"), checked by dependency-cruiser rather than kept by memory.
// `npm run lint:deps`. Paths are relative to the repository root; every rule is an error. Type-only imports count.
const { readFileSync } = require('node:fs');
const { join } = require('node:path');

/** A test file. */
const TEST = '[.]test[.]tsx?$';
/** Where shipped code lives: nothing here (tests aside) may reach test/. */
const SHIPPED = '^(server/src|client-sdk/src|contract/src|web-portal)/';
/** What a feature offers others: its index.ts. */
const FEATURE_INDEX = '^server/src/features/[^/]+/index[.]ts$';

// ---- (i), workspace half: a workspace imports another workspace by name only if its package.json declares it. ----
// npm packages are checked by `no-non-package-json` below. A workspace package resolves (through its node_modules
// symlink) to its real folder, which dependency-cruiser does not check against package.json, so these rules are
// generated from the package.json files. They look at imports by package name (`aliased-workspace`) only: a relative
// import into another workspace (`../../server/src/…`) declares nothing either way, and knip would call a declaration
// that only relative imports use "unused".
const readManifest = (dir) => JSON.parse(readFileSync(join(__dirname, dir, 'package.json'), 'utf8'));
const workspaces = readManifest('.').workspaces.map((/** @type {string} */ dir) => {
  const manifest = readManifest(dir);
  const declared = new Set(
    ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'].flatMap((key) =>
      Object.keys(manifest[key] ?? {}),
    ),
  );
  return { dir, name: manifest.name, declared };
});
const escapeRegExp = (/** @type {string} */ s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** @type {import('dependency-cruiser').IForbiddenRuleType[]} */
const workspaceRules = workspaces.flatMap((from) => {
  const undeclared = workspaces.filter((to) => to.dir !== from.dir && !from.declared.has(to.name));
  if (undeclared.length === 0) return [];
  return [
    {
      name: 'no-undeclared-workspace',
      comment:
        `${from.dir}/package.json declares none of ${undeclared.map((w) => w.name).join(', ')}: ` +
        'declare the workspace package it imports (version 0.1.0) in its dependencies or devDependencies.',
      severity: 'error',
      from: { path: `^${escapeRegExp(from.dir)}/` },
      to: {
        path: `^(${undeclared.map((w) => escapeRegExp(w.dir)).join('|')})/`,
        dependencyTypes: ['aliased-workspace'],
      },
    },
  ];
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    // (a)
    {
      name: 'no-circular',
      comment: 'No circular imports, at file level.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    // (b)
    {
      name: 'contract-is-pure',
      comment:
        "contract/src imports only its own files and contract/package.json's dependencies: no node: builtin, " +
        'no other workspace, no undeclared package.',
      severity: 'error',
      from: { path: '^contract/src/', pathNot: TEST },
      to: { pathNot: '^contract/src/', dependencyTypesNot: ['npm'] },
    },
    {
      name: 'contract-tests-stay-in-contract',
      comment: "contract's tests: contract/src, its dependencies, node: builtins and the root dev tools (vitest).",
      severity: 'error',
      from: { path: `^contract/src/.*${TEST}` },
      to: { pathNot: '^contract/src/', dependencyTypesNot: ['npm', 'npm-dev', 'core'] },
    },
    // (c)
    {
      name: 'platform-not-to-features-or-trpc',
      comment: 'platform/ is what every feature stands on: it imports neither features/ nor trpc/.',
      severity: 'error',
      from: { path: '^server/src/platform/' },
      to: { path: '^server/src/(features|trpc)/' },
    },
    // (d)
    {
      name: 'trpc-not-to-features',
      comment:
        'trpc/ knows no feature: it declares the interfaces its named procedures need (trpc/context.ts) and the ' +
        'composition root wires them.',
      severity: 'error',
      from: { path: '^server/src/trpc/' },
      to: { path: '^server/src/features/' },
    },
    {
      name: 'root-through-feature-index',
      comment:
        'The composition root, the root router and the process entry points take from a feature only what its ' +
        'index.ts exports.',
      severity: 'error',
      from: { path: '^server/src/[^/]+[.]ts$', pathNot: TEST },
      to: { path: '^server/src/features/', pathNot: FEATURE_INDEX },
    },
    {
      name: 'nothing-up-to-the-root',
      comment:
        'The root files (compose.ts, router.ts, app.ts, main.ts, dev.ts) sit above every layer: no feature, trpc/, ' +
        'platform/, worker or local-chain file imports them (compose.ts reaches every feature).',
      severity: 'error',
      from: { path: '^server/src/[^/]+/', pathNot: TEST },
      to: { path: '^server/src/[^/]+[.]ts$' },
    },
    // (e)
    {
      name: 'feature-to-feature-through-index',
      comment: "A feature, and its tests, use another feature only through that feature's index.ts.",
      severity: 'error',
      from: { path: '^server/src/features/([^/]+)/' },
      to: { path: '^server/src/features/', pathNot: ['^server/src/features/$1/', FEATURE_INDEX] },
    },
    {
      name: 'no-feature-imports-pay-webhooks',
      comment:
        'pay-webhooks is one stream of the webhook engine (features/webhooks), not an engine: no other feature ' +
        "imports it, so turning pay webhooks off or changing them reaches no other stream (the engine's tests run " +
        'it with both real streams).',
      severity: 'error',
      from: {
        path: '^server/src/features/',
        pathNot: ['^server/src/features/pay-webhooks/', `^server/src/features/webhooks/.*${TEST}`],
      },
      to: { path: '^server/src/features/pay-webhooks/' },
    },
    {
      name: 'webhook-engine-knows-no-stream',
      comment:
        'The webhook engine knows no stream: streams register with it (features/webhooks/stream.ts), it imports ' +
        'none of them.',
      severity: 'error',
      from: { path: '^server/src/features/webhooks/', pathNot: TEST },
      to: { path: '^server/src/features/', pathNot: '^server/src/features/webhooks/' },
    },
    {
      name: 'mcp-imports-down',
      comment:
        'server/src/mcp/ (the MCP tool server, its own process) imports only contract/, platform/, its own files, ' +
        "features' index.ts, and the published SDK (the prepare tools build what a client would, with the client's code).",
      severity: 'error',
      from: { path: '^server/src/mcp/', pathNot: TEST },
      to: {
        path: '^(server/src|contract/src|client-sdk/src|test|web-portal)/',
        pathNot: ['^server/src/(mcp|platform)/', '^contract/src/', '^client-sdk/src/', FEATURE_INDEX],
      },
    },
    {
      name: 'nothing-imports-mcp',
      comment: 'The MCP server is a process of its own (dev.ts spawns it by path): only tests import server/src/mcp/.',
      severity: 'error',
      from: { path: '^(server/src|contract/src|client-sdk/src|web-portal)/', pathNot: ['^server/src/mcp/', TEST] },
      to: { path: '^server/src/mcp/' },
    },
    // (f)
    {
      name: 'src-not-to-test',
      comment:
        'Nothing shipped (under a src/, or web-portal/) imports test/; harnesses live in test/support and only ' +
        'tests (*.test.ts) use them.',
      severity: 'error',
      from: { path: SHIPPED, pathNot: TEST },
      to: { path: '^test/' },
    },
    {
      name: 'src-not-to-test',
      comment: 'The same, for an import of the @sigil/test package that does not resolve to test/.',
      severity: 'error',
      from: { path: SHIPPED, pathNot: TEST },
      to: { path: '^@sigil/test($|/)' },
    },
    // (g)
    {
      name: 'workers-through-feature-index',
      comment: "workers/ (and their tests) call feature services through the feature's index.ts, never its internals.",
      severity: 'error',
      from: { path: '^server/src/workers/' },
      to: { path: '^server/src/features/', pathNot: FEATURE_INDEX },
    },
    // (h)
    {
      name: 'not-to-test-file',
      comment: 'Only a test imports a *.test.ts file (what tests share belongs in a helper module).',
      severity: 'error',
      from: { pathNot: TEST },
      to: { path: TEST },
    },
    // (i)
    {
      name: 'no-non-package-json',
      comment:
        "An npm package that the importing file's package.json does not declare. The root package.json's " +
        'devDependencies (vitest, typescript, tsx, @types/node) serve every workspace (combinedDependencies).',
      severity: 'error',
      from: {},
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that resolves to no file: a missing package or a wrong path.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
    ...workspaceRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Build output. (node_modules is not excluded: excluded modules vanish as dependencies too, and the npm rules
    // need them; doNotFollow keeps dependency-cruiser out of them.)
    exclude: {
      path: ['^(dist|data|coverage)/', '^(server|client-sdk|contract|test|web-portal)/(dist|[.]next|coverage)/'],
    },
    tsPreCompilationDeps: true,
    // The root tsconfig: moduleResolution Bundler. Its one path mapping (`next` → web-portal/next-stub.d.ts, for the
    // root type check) also applies here, so the portal's `import type … from 'next'` shows as a local file.
    tsConfig: { fileName: 'tsconfig.json' },
    // npm workspaces: a file's own package.json plus the root one (shared dev tools, and the `workspaces` list that
    // marks @sigil/* imports as `aliased-workspace`).
    combinedDependencies: true,
    enhancedResolveOptions: {
      // The workspace packages' `exports` point at .ts sources; `types` first, as TypeScript resolves.
      exportsFields: ['exports'],
      conditionNames: ['types', 'import', 'require', 'node', 'default'],
      mainFields: ['types', 'typings', 'module', 'main'],
      extensions: ['.ts', '.tsx', '.d.ts', '.js', '.mjs', '.cjs', '.jsx', '.json'],
    },
    skipAnalysisNotInRules: true,
  },
};
