import { z } from 'zod';
import { agentManifestJsonSchema } from '@sigil/contract/agents';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

// Generated once: the schema is a pure function of the contract.
const MANIFEST_JSON_SCHEMA = agentManifestJsonSchema();

/** GET /schemas/agent-manifest.v1.json (public): the manifest's JSON Schema (draft 2020-12). */
export const manifestSchema = publicProcedure
  .meta(
    rest('GET', '/schemas/agent-manifest.v1.json', {
      summary: 'Agent manifest v1 JSON Schema',
      description:
        'Generated from the contract. Address formats and https-only URLs are also enforced by the service (docs/agents.md).',
      tags: ['agents'],
    }),
  )
  .input(z.object({}))
  .output(z.record(z.string(), z.unknown()))
  .query(() => MANIFEST_JSON_SCHEMA);
