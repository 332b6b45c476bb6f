// search_agent_handles: prefix or substring search over agent handles, paginated, through the query API
// (SIGIL_QUERY_API_URL: Sigil's own GET /v1/search/handles, docs/search.md). The MCP side takes no credentials from
// agents, so the process carries its own key for that keyed API (SIGIL_QUERY_API_KEY). No query API configured →
// the spec's `not-available`, which is an answer, not an error.
import { z } from 'zod';
import { API_KEY_HEADER } from '@sigil/contract/http-headers';
import { MAX_HANDLE_LENGTH } from '@sigil/contract/names';
import {
  SEARCH_LIMITS,
  SEARCH_MODES,
  SearchHandleItemSchema,
  SearchHandlesResponseSchema,
} from '@sigil/contract/search';
import type { UpstreamResponse } from '../../platform/outbound/upstream';
import type { ToolDefinition, ToolDeps, ToolOutcome } from '../tool';

/** Bound on one query API call: a search is one indexed SQL query, so anything slower is an outage. */
const QUERY_API_TIMEOUT_MS = 10_000;

/** Code of a query API that cannot be reached or answers something that is not its API (a 5xx page, a timeout). */
export const QUERY_API_UNAVAILABLE = 'QUERY_API_UNAVAILABLE';

const inputSchema = {
  query: z
    .string()
    .min(1)
    .max(MAX_HANDLE_LENGTH + 1)
    .describe('Text to look for in handle names, e.g. "scout" or "@sc". Normalized like a name; matched literally.'),
  mode: z
    .enum(SEARCH_MODES)
    .optional()
    .describe('"prefix" (default): names starting with query; "substring": names containing it.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_LIMITS.pageMax)
    .optional()
    .describe(`Page size, 1-${SEARCH_LIMITS.pageMax} (default ${SEARCH_LIMITS.pageDefault}).`),
  cursor: z
    .string()
    .min(1)
    .max(SEARCH_LIMITS.cursorMaxLength)
    .optional()
    .describe("The previous result's nextCursor, unchanged, for the next page."),
};

const outputSchema = {
  status: z
    .enum(['ok', 'not-available'])
    .describe('"not-available": this server has no query API configured; items is then empty.'),
  items: z.array(SearchHandleItemSchema).describe('Agent handles in name order.'),
  nextCursor: z.string().nullable().optional().describe('Pass as cursor for the next page; null on the last page.'),
};

type Output = z.infer<z.ZodObject<typeof outputSchema>>;

export const searchAgentHandlesTool: ToolDefinition<typeof inputSchema, typeof outputSchema> = {
  name: 'search_agent_handles',
  title: 'Search agent handles',
  description:
    'Finds AI-agent handles (handle type 3, or a handle with an agent.manifest record) whose name starts with ' +
    '(mode "prefix", the default) or contains (mode "substring") the query. Results come in name order, at most ' +
    '`limit` per call; when nextCursor is a string, call again with it as `cursor` for the next page. The list comes ' +
    "from the service's index of the registry and may lag the chain by a few seconds; confirm one with " +
    'get_agent_manifest. status "not-available" means this server has no search backend configured. Errors: ' +
    'BAD_REQUEST (a query of control characters or over 32 characters, a cursor not from this search), ' +
    'INVALID_KEY / API_KEY_REQUIRED (the server is misconfigured), RATE_LIMITED (retry later), ' +
    `${QUERY_API_UNAVAILABLE} (the search backend is down; retry).`,
  inputSchema,
  outputSchema,
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  run: (args, deps: ToolDeps) => search(args, deps),
};

async function search(args: z.infer<z.ZodObject<typeof inputSchema>>, deps: ToolDeps): Promise<ToolOutcome<Output>> {
  if (deps.queryApiUrl === undefined) return { ok: true, value: { status: 'not-available', items: [] } };
  const params = new URLSearchParams({ q: args.query, mode: args.mode ?? 'prefix', agent: 'true' });
  if (args.limit !== undefined) params.set('limit', String(args.limit));
  if (args.cursor !== undefined) params.set('cursor', args.cursor);
  const headers: Record<string, string> = { accept: 'application/json' };
  if (deps.queryApiKey) headers[API_KEY_HEADER] = deps.queryApiKey;

  let response: UpstreamResponse;
  let body: unknown;
  try {
    response = await deps.fetch(`${deps.queryApiUrl}/v1/search/handles?${params}`, {
      headers,
      redirect: 'error',
      timeoutMs: QUERY_API_TIMEOUT_MS,
    });
    body = await response.json();
  } catch (err) {
    return {
      ok: false,
      code: QUERY_API_UNAVAILABLE,
      message: `the query API did not answer: ${(err as Error).message}`,
    };
  }
  if (response.ok) {
    const page = SearchHandlesResponseSchema.safeParse(body);
    if (!page.success) {
      return { ok: false, code: QUERY_API_UNAVAILABLE, message: 'the query API answered an unexpected body' };
    }
    return { ok: true, value: { status: 'ok', items: page.data.items, nextCursor: page.data.nextCursor } };
  }
  // The API's own `{code, message}` is the agent's answer (BAD_REQUEST, INVALID_KEY, RATE_LIMITED, …).
  const failure = body as { code?: unknown; message?: unknown } | null;
  if (failure && typeof failure.code === 'string' && typeof failure.message === 'string') {
    return { ok: false, code: failure.code, message: failure.message };
  }
  return { ok: false, code: QUERY_API_UNAVAILABLE, message: `the query API answered HTTP ${response.status}` };
}
