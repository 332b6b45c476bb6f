// The library builds a client from its metadata (every field checked against its schema: ~0.1 ms) and keeps what it
// built for its last 100 to 200 registrations (two generations of 100), a size it does not let us set. With more
// clients in use than that (one per partner app), lookups in turn miss it, and every authorization, resume, token and
// userinfo request builds its client again: a sign-in would cost more as the number of clients grows. So each built
// client is kept here by its id, with the metadata it was built from, for as many clients as are in use
// (docs/oidc.md "Clients are API keys"). The registration itself is still read on every lookup, so a revoked key's
// client is gone at once and an edited one is built again.
import { LRUCache } from 'lru-cache';
import type Provider from 'oidc-provider';
import { aheadKey } from './adapter';
import { clientMetadata } from './clients';
import type { ClientRow } from './queries';
import { keep } from './request-scope';

type Client = NonNullable<Awaited<ReturnType<Provider['Client']['find']>>>;

/** Clients kept built: far more than a deployment has in use, each a few kilobytes. */
const BUILT_CLIENTS_MAX = 10_000;

/**
 * Replaces the provider's client lookup: `readRow` reads the registration (as the adapter does); a client built from
 * the same metadata is returned as built, otherwise the library builds it (in a request of the provider, from the
 * row just read through the request's read-ahead, with no second statement; elsewhere it reads the row again). The
 * configuration has no static clients and no client id metadata documents, so a registration the adapter does not
 * find is no client.
 */
export function keepBuiltClients(
  provider: Provider,
  readRow: (id: string) => Promise<ClientRow | undefined>,
  max = BUILT_CLIENTS_MAX,
): void {
  const { Client } = provider;
  const build = Client.find.bind(Client);
  const built = new LRUCache<string, { metadata: string; client: Client }>({ max });
  Client.find = async (id: string) => {
    if (typeof id !== 'string' || id.length === 0) return undefined;
    const row = await readRow(id);
    if (!row) {
      built.delete(id);
      return undefined;
    }
    const metadata = JSON.stringify(clientMetadata(row));
    const kept = built.get(id);
    if (kept?.metadata === metadata) return kept.client;
    keep(aheadKey('Client', id), row);
    const client = await build(id);
    if (client) built.set(id, { metadata, client });
    return client;
  };
}
