// `GET /`: a small JSON index for someone who opens the service's address — where the API reference, the OpenAPI
// document, the health checks and the developer portal are. Registered next to /docs; it is not an API route, so the
// REST face's routes and error shapes stay as they are (a POST to / is still the REST face's 404).
import type { FastifyInstance } from 'fastify';

export interface IndexLinks {
  publicUrl: string;
  portalUrl?: string;
}

/** The index's body, absolute links on the service's public address. */
export function indexBody({ publicUrl, portalUrl }: IndexLinks): object {
  return {
    service: 'sigil',
    links: {
      docs: `${publicUrl}/docs`,
      openapi: `${publicUrl}/openapi.json`,
      health: `${publicUrl}/health`,
      ready: `${publicUrl}/ready`,
      ...(portalUrl ? { portal: portalUrl } : {}),
    },
  };
}

export function registerIndex(app: FastifyInstance, links: IndexLinks): void {
  const json = JSON.stringify(indexBody(links));
  app.get('/', (_request, reply) => {
    reply.type('application/json; charset=utf-8').send(json);
  });
}
