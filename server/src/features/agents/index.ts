// Agents: handles that describe an AI agent through a manifest record.
import type { AgentService } from './service';

export { agentsRouter } from './router';
export { createAgentService } from './service';
// The MCP get_agent_manifest tool names the deployment network and probes x402 endpoints with the manifest limits.
export { MANIFEST_MAX_BYTES, MANIFEST_TIMEOUT_MS, type ManifestNetwork } from './service';

declare module '../../trpc/context' {
  interface Services {
    agents: AgentService;
  }
}
