// Every tool the MCP server serves, in the order tools/list shows them. A tool is one ToolDefinition module
// (tool.ts); adding one is its file plus one line here.
import type { ToolDefinition } from '../tool';
import { checkAvailabilityTool } from './check-availability';
import { getRecordsTool } from './get-records';
import { resolveNameTool } from './resolve-name';
import { reverseLookupTool } from './reverse-lookup';
// ---- agent tools (get_agent_manifest, search_agent_handles): imports here ----
// ---- transaction and payment tools (prepare_*, *_x402_payment): imports here ----

export const TOOLS: readonly ToolDefinition[] = [
  // Names and records.
  resolveNameTool,
  reverseLookupTool,
  checkAvailabilityTool,
  getRecordsTool,
  // ---- agent tools: entries here ----
  // ---- transaction and payment tools: entries here ----
] as readonly ToolDefinition[];
