// Agents: handles that describe an AI agent through a manifest record.
import type { AgentService } from './service';

export { agentsRouter } from './router';
export { createAgentService } from './service';
export { type AgentService, type ManifestNetwork } from './service';
// The verification levels, shared by the MCP tool get_agent_manifest and Gate's agent.level leaf.
export { LEVELS, type AgentLevelReport } from './level';

declare module '../../trpc/context' {
  interface Services {
    agents: AgentService;
  }
}
