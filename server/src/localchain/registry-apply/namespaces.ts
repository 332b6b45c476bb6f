// Namespaces and the domains under them (the creator-priced form is the market's register_under_namespace_v2).
import { parseDomain } from '@sigil/contract/names';
import {
  decodeNamespace,
  encodeDomain,
  encodeNamespace,
  findDomainPda,
  findNamespacePda,
  MARKET_PDAS,
} from '../../platform/chain/registry';
import { expectPda, fail } from '../emulator-run';
import type { RegistryRows } from './rows';

export const namespaceRows = {
  create_namespace: async (emu, run, ix) => {
    const { programId } = emu;
    const feePayer = run.tx.accountKeys[0]!;
    const { authority, namespace } = ix.accounts;
    const { tld } = ix.args;
    run.requireSigner(authority, 'authority');
    if (!/^[a-z0-9]{1,16}$/.test(tld)) throw fail('InvalidName', `bad tld "${tld}"`);
    const bump = await expectPda(namespace, findNamespacePda(programId, tld), 'namespace');
    if (run.read(namespace)) throw fail('AlreadyExists', `namespace .${tld} exists`);
    run.writeProgramAccount(
      namespace,
      encodeNamespace({ authority, active: true, createdAt: run.now, bump, tld }),
      feePayer,
    );
  },
  register_under_namespace: async (emu, run, ix) => {
    const { programId } = emu;
    const { payer, owner, namespace, domain } = ix.accounts;
    const { label } = ix.args;
    run.requireSigner(payer, 'payer');
    run.requireSigner(owner, 'owner');
    const ns = run.load(namespace, decodeNamespace, 'namespace');
    if (!ns.active) throw fail('NamespaceInactive', `.${ns.tld} is not active`);
    // A creator-priced namespace takes register_under_namespace_v2 (the program finds its pricing PDA).
    const [pricing] = await MARKET_PDAS.namespacePricing(programId, namespace);
    if (run.read(pricing)?.owner === programId)
      throw fail('NamespacePricingRequiresV2', `.${ns.tld} is creator-priced: use register_under_namespace_v2`);
    if (!parseDomain(`${label}.${ns.tld}`, [ns.tld]))
      throw fail('InvalidName', `"${label}.${ns.tld}" is not a valid domain`);
    const bump = await expectPda(domain, findDomainPda(programId, namespace, label), 'domain');
    if (run.read(domain)) throw fail('AlreadyRegistered', `${label}.${ns.tld} is registered`);
    run.writeProgramAccount(
      domain,
      encodeDomain({
        namespace,
        owner,
        tokenized: false,
        mint: null,
        registeredAt: run.now,
        registeredSlot: run.slot,
        bump,
        label,
        tld: ns.tld,
      }),
      payer,
    );
  },
} satisfies RegistryRows;
