// Every tool the MCP server serves, in the order tools/list shows them. A tool is one ToolDefinition module
// (tool.ts); adding one is its file, its import and its entry below. Each tool still to come has its own anchor
// line, one unchanged line apart from the next, so that tools added on separate branches merge without conflict.
import type { ToolDefinition } from '../tool';
import { checkAvailabilityTool } from './check-availability';
import { getRecordsTool } from './get-records';
import { resolveNameTool } from './resolve-name';
import { reverseLookupTool } from './reverse-lookup';
// import: get_agent_manifest
//
// import: search_agent_handles
//
// import: prepare_register
//
// import: prepare_set_record
//
// import: prepare_x402_payment
//
// import: verify_x402_payment

export const TOOLS: readonly ToolDefinition[] = [
  // Names and records.
  resolveNameTool,
  reverseLookupTool,
  checkAvailabilityTool,
  getRecordsTool,
  // Agents.
  // entry: get_agent_manifest
  //
  // entry: search_agent_handles
  //
  // Transactions and payments (prepared, never signed).
  // entry: prepare_register
  //
  // entry: prepare_set_record
  //
  // entry: prepare_x402_payment
  //
  // entry: verify_x402_payment
];
