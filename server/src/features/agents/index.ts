// Agents: handles that describe an AI agent through a manifest record.
import type { AgentService } from './service';

export { agentsRouter } from './router';
export { createAgentService } from './service';

declare module '../../trpc/context' {
  interface Services {
    agents: AgentService;
  }
}
