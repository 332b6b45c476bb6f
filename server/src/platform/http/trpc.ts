// The tRPC face at /trpc, for first-party clients (the portal). Same router, same context, same domain errors as
// REST; errors render through the router's errorFormatter (trpc/init.ts), with the domain error's status.
import type { AnyTRPCRouter } from '@trpc/server';
import { fastifyRequestHandler } from '@trpc/server/adapters/fastify';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { domainErrorOf, statusOfDomainError } from './errors';

export interface TrpcOptions {
  router: AnyTRPCRouter;
  createContext: (request: FastifyRequest) => unknown | Promise<unknown>;
}

export function registerTrpc(app: FastifyInstance, opts: TrpcOptions): void {
  const known = new Set(Object.keys(opts.router._def.procedures as Record<string, unknown>));

  app.all<{ Params: { path: string } }>('/trpc/:path', async (request, reply) => {
    const path = request.params.path;
    // Label by procedure only when it exists: unknown names must not grow the metrics' label set.
    request.routeLabel = path.includes(',') ? '/trpc/(batch)' : known.has(path) ? `/trpc/${path}` : '/trpc/:path';
    await fastifyRequestHandler({
      router: opts.router,
      req: request,
      res: reply,
      path,
      createContext: () => opts.createContext(request),
      responseMeta({ errors }) {
        // One failed call: answer with the domain error's status and headers (e.g. 424, Retry-After).
        const domain = errors.length === 1 ? domainErrorOf(errors[0]) : undefined;
        if (!domain) return {};
        const headers = 'headers' in domain && domain.headers ? domain.headers : undefined;
        return { status: statusOfDomainError(domain), headers };
      },
      onError({ error }) {
        if (error.code === 'INTERNAL_SERVER_ERROR' && !domainErrorOf(error))
          request.log.error({ err: error.cause ?? error }, 'unexpected error in tRPC procedure');
      },
    });
  });
}
