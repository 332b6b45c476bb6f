// The MCP server's tools. A tool is one ToolDefinition module (tool.ts); adding one is its file plus one line here.
import type { ToolDefinition } from '../tool';
import { createAgentManifestTool, type AgentManifestToolSettings } from './agent-manifest';
import { checkAvailabilityTool } from './check-availability';
import { getRecordsTool } from './get-records';
import { prepareBidTool, prepareOfferTool } from './prepare-market';
import { prepareRegisterTool } from './prepare-register';
import { prepareSetRecordTool } from './prepare-set-record';
import { prepareX402PaymentTool } from './prepare-x402-payment';
import { resolveNameTool } from './resolve-name';
import { reverseLookupTool } from './reverse-lookup';
import { searchAgentHandlesTool } from './search-agent-handles';
import { verifyX402PaymentTool } from './verify-x402-payment';

/** Every tool the server serves, in the order tools/list shows them; the agent tool judges manifests per network. */
export function mcpTools(settings: AgentManifestToolSettings): readonly ToolDefinition[] {
  return [
    // Names and records.
    resolveNameTool,
    reverseLookupTool,
    checkAvailabilityTool,
    getRecordsTool,
    // Agents.
    createAgentManifestTool(settings),
    searchAgentHandlesTool,
    // Transactions and payments (prepared, never signed).
    prepareRegisterTool,
    prepareSetRecordTool,
    prepareOfferTool,
    prepareBidTool,
    prepareX402PaymentTool,
    verifyX402PaymentTool,
  ];
}
