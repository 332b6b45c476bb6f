// Rows of namespaces: created, priced by their creator, and the domains registered under them (both forms).
import { readKv, writeKv } from '../../../platform/db/index';
import type { DeriveContext, DeriveRows, Ix } from './context';
import { kvGet, kvSet } from './state';

const namespaceKey = (account: string) => `identity:namespace:${account}`;

async function domainRegistered(c: DeriveContext, ix: Ix<'register_under_namespace' | 'register_under_namespace_v2'>) {
  const { owner, namespace, domain } = ix.accounts;
  const tld = (await readKv(c.trx as never, namespaceKey(namespace))) ?? null;
  c.emit({
    type: 'domain.registered',
    handle: null,
    actors: { signer: c.signer, owner },
    change: {
      domain: { account: domain, label: ix.args.label, tld, namespace },
      owner: { before: null, after: owner },
    },
  });
}

export const namespaceRows = {
  create_namespace: async (c, ix) => {
    const { authority, namespace } = ix.accounts;
    await writeKv(c.trx as never, namespaceKey(namespace), ix.args.tld);
    c.emit({
      type: 'namespace.created',
      handle: null,
      actors: { signer: c.signer, authority },
      change: { namespace, tld: ix.args.tld },
    });
  },
  register_under_namespace: domainRegistered,
  register_under_namespace_v2: domainRegistered,
  set_namespace_pricing: async (c, ix) => {
    const { authority, namespace } = ix.accounts;
    const prior = await kvGet<{ price: string }>(c, 'pricing', namespace);
    const price = ix.args.price.toString();
    await kvSet(c, 'pricing', namespace, { price });
    c.emit({
      type: 'namespace.pricing_set',
      handle: null,
      actors: { signer: c.signer, authority },
      change: { namespace, price: { before: prior?.price ?? null, after: price } },
    });
  },
} satisfies DeriveRows;
