// Property-based fuzzing of every operation of /openapi.json (fast-check), in process (app.inject) over the whole
// keyed service: the real chain reader against the local chain, a fresh database, real keys. Each generated request
// mixes malformed path and query values (huge, control characters, broken %-encoding), bodies of the wrong type,
// with missing or extra fields, deep nesting, invalid JSON, other media types, and no key, a bad key or a real one.
// Every answer must: be a status the operation documents when it is a 5xx; carry the spec's error shape when it is
// an error (/v1: {code, message}; public: {error, input?}); come within 10 s; leak no stack or internal name.
// At least 10,000 requests per run; FUZZ_RUNS=100000 npx vitest run test/fuzz for a long local run.
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startKeyedApp, type KeyedApp } from '@sigil/test/support/keyed-app';
import { privyIssuer } from '@sigil/test/support/privy-tokens';

const TOTAL = Number(process.env.FUZZ_RUNS ?? 10_000);
const HANG_MS = 10_000;

interface Operation {
  method: string;
  path: string;
  pathParams: string[];
  queryParams: string[];
  bodyFields: string[];
  hasBody: boolean;
  documented: Set<number>;
}

let t: KeyedApp;
let operations: Operation[] = [];
let sent = 0;

beforeAll(async () => {
  // Privy configured, so POST /privy/wallet verifies what it gets instead of answering 501 to everything.
  t = await startKeyedApp({ dialect: 'sqlite', env: (await privyIssuer()).env });
  const doc = (await t.app.inject({ method: 'GET', url: '/openapi.json' })).json();
  for (const [path, item] of Object.entries<Record<string, any>>(doc.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const params: { name: string; in: string }[] = [...(item.parameters ?? []), ...(op.parameters ?? [])];
      const schema = op.requestBody?.content?.['application/json']?.schema;
      operations.push({
        method: method.toUpperCase(),
        path,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        queryParams: params.filter((p) => p.in === 'query').map((p) => p.name),
        bodyFields: Object.keys(schema?.properties ?? {}),
        hasBody: Boolean(op.requestBody),
        documented: new Set(Object.keys(op.responses ?? {}).map(Number)),
      });
    }
  }
}, 120_000);

afterAll(() => t?.close());

// ---------------------------------------------------------------------------------------------------------------
// Generators

const controlChars = fc.string({ unit: fc.integer({ min: 0, max: 31 }).map((c) => String.fromCharCode(c)) });
const plausible = fc.constantFrom(
  '@alice',
  'alice',
  'alice.x1',
  'satoshi.xnt',
  'vitalik.eth',
  'bonfida.sol',
  'So11111111111111111111111111111111111111112',
  '11111111111111111111111111111111',
  '0',
  '-1',
  '1e309',
  'null',
  'true',
  '[]',
  '{}',
  '__proto__',
  'constructor',
  '../../etc/passwd',
  '%00',
  // JWT-shaped values (Privy identity tokens, bearer tokens): ES256 and `none` headers, broken parts.
  'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCJ9.eyJpc3MiOiJwcml2eS5pbyJ9.AAAA',
  'eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.',
  'a.b.c',
  '..',
  // Transaction signatures (POST /gift/notify): the demo scenario's gift, a well-formed unknown one, 65 bytes.
  '4DWLtyNQDCZ7mLZL72iteDkrh4jWuMfW37Fqzsq9KoJPicSqJND6m4S6RJjihAzLc8eBZwNeg28nK43BhqhQRgZS',
  '1111111111111111111111111111111111111111111111111111111111111111',
  '5'.repeat(89),
);
/** A string value of any kind: plausible, random, unicode, control characters, long, huge. */
const anyString = fc.oneof(
  { weight: 3, arbitrary: plausible },
  { weight: 3, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.string({ unit: 'binary' }) },
  { weight: 1, arbitrary: controlChars },
  { weight: 1, arbitrary: fc.nat({ max: 3000 }).map((n) => 'a'.repeat(n)) },
  { weight: 1, arbitrary: fc.constant('x'.repeat(70_000)) },
);
/** How a value goes into a URL: encoded, raw (whatever bytes it has), or with a broken %-sequence. */
const inUrl = (value: fc.Arbitrary<string>) =>
  fc.oneof(
    value.map((v) => encodeURIComponent(v)),
    value.map((v) => v.replace(/[\s#?/]/g, '')),
    fc.constantFrom('%', '%zz', '%C0%AF', '%FF%FE', '%E2%82', 'a%2Fb', '%252F'),
  );
/** JSON text of any value, deep nesting included (built as text: a value that deep would overflow stringify here). */
const anyJsonText = fc.oneof(
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.nat({ max: 5000 }).map((n) => `${'['.repeat(n)}${']'.repeat(n)}`),
  fc.nat({ max: 2000 }).map((n) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`),
);
const fieldValueText = fc.oneof(
  anyString.map((v) => JSON.stringify(v)),
  fc.integer().map(String),
  fc.constantFrom('1e309', '-0', '0.1', '9007199254740993', 'true', 'false', 'null'),
  anyJsonText,
);

function body(op: Operation) {
  const withFields = fc
    .tuple(
      fc.subarray(op.bodyFields),
      fc.array(fc.tuple(fc.string({ maxLength: 12 }), fieldValueText), { maxLength: 3 }),
      fc.array(fieldValueText, { minLength: op.bodyFields.length, maxLength: op.bodyFields.length }),
    )
    .map(([fields, extra, values]) => {
      const entries = [...fields.map((field, i) => [field, values[i]!] as const), ...extra];
      return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`;
    });
  return fc.oneof(
    { weight: 4, arbitrary: withFields },
    { weight: 2, arbitrary: anyJsonText },
    { weight: 1, arbitrary: fc.string() },
    { weight: 1, arbitrary: fc.constantFrom('', '{', '{"a":1,}', '\u0000', '{"__proto__":{"x":1}}', 'null') },
    { weight: 1, arbitrary: fc.constant(`{"a":"${'y'.repeat(70_000)}"}`) },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
}

const contentType = fc.constantFrom(
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=latin1',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
  'garbage',
  undefined,
);

function request(op: Operation) {
  const credentials = fc.constantFrom<'none' | 'free' | 'portal' | 'bad' | 'bearer'>(
    'none',
    'free',
    'portal',
    'bad',
    'bearer',
  );
  return fc.record({
    pathValues: fc.array(inUrl(anyString), { minLength: op.pathParams.length, maxLength: op.pathParams.length }),
    query: fc.array(
      fc.tuple(fc.oneof(fc.constantFrom(...op.queryParams, 'extra'), fc.string({ maxLength: 8 })), inUrl(anyString)),
      {
        maxLength: 4,
      },
    ),
    body: op.hasBody ? body(op) : fc.oneof(fc.constant(undefined), body(op)),
    contentType,
    credentials,
    badKey: anyString,
  });
}

// ---------------------------------------------------------------------------------------------------------------
// The checks

/** What no error body may contain: stacks, source paths, framework and library internals. */
const LEAKS =
  /\bat [\w.<>]+ \(|\.ts:\d|\.js:\d|node_modules|ZodError|TRPCError|TRPC_|INTERNAL_SERVER_ERROR|FST_[A-Z]|SqliteError|better-sqlite3|kysely|"stack"|ECONNREFUSED/;

function checkShape(op: Operation, status: number, text: string): string | undefined {
  if (status < 400) return undefined;
  let parsed: any;
  try {
    parsed = JSON.parse(text);
  } catch {
    return `error body is not JSON: ${text.slice(0, 200)}`;
  }
  const { input: _echo, ...rest } = parsed ?? {};
  if (LEAKS.test(JSON.stringify(rest))) return `leak in ${text.slice(0, 300)}`;
  if (op.path.startsWith('/v1/')) {
    // The x402 challenge is the one /v1 error of another shape (spec): a 402 with the payment requirements.
    if (status === 402 && parsed && typeof parsed === 'object' && 'accepts' in parsed) return undefined;
    const keys = Object.keys(parsed ?? {})
      .sort()
      .join(',');
    if (keys !== 'code,message' || typeof parsed.code !== 'string' || typeof parsed.message !== 'string')
      return `not {code, message}: ${text.slice(0, 200)}`;
  } else {
    const keys = Object.keys(parsed ?? {});
    const ok =
      typeof parsed?.error === 'string' &&
      keys.every((k) => k === 'error' || k === 'input') &&
      (parsed.input === undefined || typeof parsed.input === 'string');
    if (!ok) return `not {error, input?}: ${text.slice(0, 200)}`;
  }
  return undefined;
}

describe('fuzzing every OpenAPI operation', () => {
  it('finds the operations', () => {
    expect(operations.length).toBeGreaterThan(20);
  });

  it(`answers ${TOTAL} generated requests within the spec`, async () => {
    const runsPerOperation = Math.ceil(TOTAL / operations.length);
    for (const op of operations) {
      await fc.assert(
        fc.asyncProperty(request(op), async (r) => {
          let path = op.path;
          op.pathParams.forEach((name, i) => (path = path.replace(`{${name}}`, r.pathValues[i] || 'x')));
          const query = r.query.map(([k, v]) => `${encodeURIComponent(k)}=${v}`).join('&');
          const headers: Record<string, string> = {};
          if (r.contentType && r.body !== undefined) headers['content-type'] = r.contentType;
          if (r.credentials === 'free') headers['x-api-key'] = t.key.secret;
          if (r.credentials === 'portal') headers['x-api-key'] = t.portal.secret;
          if (r.credentials === 'bad') headers['x-api-key'] = r.badKey.replace(/[^\x20-\x7e]/g, '');
          if (r.credentials === 'bearer') headers.authorization = `Bearer ${r.badKey.replace(/[^\x20-\x7e]/g, '')}`;
          const url = query ? `${path}?${query}` : path;
          let timer: NodeJS.Timeout | undefined;
          const hang = new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no answer within ${HANG_MS} ms`)), HANG_MS);
          });
          const res = await Promise.race([
            t.app.inject({ method: op.method as 'GET', url, headers, payload: r.body }),
            hang,
          ]).finally(() => clearTimeout(timer));
          sent++;
          const where = `${op.method} ${url.slice(0, 300)} → ${res.statusCode}`;
          if (res.statusCode >= 500 && !op.documented.has(res.statusCode))
            throw new Error(`undocumented ${res.statusCode}: ${where}: ${res.body.slice(0, 300)}`);
          const problem = checkShape(op, res.statusCode, res.body);
          if (problem) throw new Error(`${where}: ${problem}`);
        }),
        { numRuns: runsPerOperation, endOnFailure: true },
      );
    }
    expect(sent).toBeGreaterThanOrEqual(TOTAL);
  }, 3_600_000);
});
