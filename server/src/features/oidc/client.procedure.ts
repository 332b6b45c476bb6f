import {
  OidcClientParamsSchema,
  OidcClientResponseSchema,
  OidcClientsResponseSchema,
  PutOidcClientRequestSchema,
} from '@sigil/contract/oidc';
import { z } from 'zod';
import { rest } from '../../trpc/meta';
import { sessionProcedure, SESSION_ERRORS } from '../../trpc/procedures';

const KEY_ERRORS = { ...SESSION_ERRORS, KEY_NOT_FOUND: 'not one of your active keys' } as const;

/** GET /v1/oidc/clients: the OpenID Connect clients of the caller's active keys. */
export const listClients = sessionProcedure
  .meta(
    rest('GET', '/v1/oidc/clients', {
      summary: 'List the OpenID Connect clients of your API keys',
      description:
        'Every active key of the session wallet that is registered as a client (a key that is none is absent). ' +
        'Never a client secret.',
      tags: ['oidc'],
      protect: true,
      errors: { ...SESSION_ERRORS },
    }),
  )
  .input(z.object({}))
  .output(OidcClientsResponseSchema)
  .query(({ ctx }) => ctx.services.oidc.listClients(ctx.session.address));

/** GET /v1/keys/{id}/oidc: the key's OpenID Connect client registration. */
export const getClient = sessionProcedure
  .meta(
    rest('GET', '/v1/keys/{id}/oidc', {
      summary: "Read an API key's OpenID Connect client",
      description: 'The client_id is the key id. The client secret is never shown again.',
      tags: ['oidc'],
      protect: true,
      errors: { ...KEY_ERRORS, OIDC_CLIENT_NOT_FOUND: 'the key has no client registration' },
    }),
  )
  .input(OidcClientParamsSchema)
  .output(OidcClientResponseSchema)
  .query(({ ctx, input }) => ctx.services.oidc.getClient(ctx.session.address, input.id));

/** PUT /v1/keys/{id}/oidc: creates or replaces the registration (a confidential client gets its secret once). */
export const putClient = sessionProcedure
  .meta(
    rest('PUT', '/v1/keys/{id}/oidc', {
      summary: "Register or update an API key's OpenID Connect client",
      description:
        'Redirect URIs must be https (http only on a loopback host). A confidential client receives a secret ' +
        'when it is created, when it becomes confidential, and on `rotate_secret`; only its SHA-256 is stored.',
      tags: ['oidc'],
      protect: true,
      errors: { ...KEY_ERRORS, BAD_REQUEST: 'a URI or scope is not acceptable' },
    }),
  )
  .input(PutOidcClientRequestSchema)
  .output(OidcClientResponseSchema)
  .mutation(({ ctx, input }) => ctx.services.oidc.putClient(ctx.session.address, input));

/** DELETE /v1/keys/{id}/oidc: removes the registration; the client gets no more tokens. */
export const deleteClient = sessionProcedure
  .meta(
    rest('DELETE', '/v1/keys/{id}/oidc', {
      summary: "Remove an API key's OpenID Connect client",
      description: 'Effective at once on every replica: the client_id is no longer known to the provider.',
      tags: ['oidc'],
      protect: true,
      errors: { ...KEY_ERRORS, OIDC_CLIENT_NOT_FOUND: 'the key has no client registration' },
    }),
  )
  .input(OidcClientParamsSchema)
  .output(z.object({ deleted: z.literal(true) }))
  .mutation(async ({ ctx, input }) => {
    await ctx.services.oidc.deleteClient(ctx.session.address, input.id);
    return { deleted: true as const };
  });
