// Scenario steps: the namespaces (x1, xnt, xen, authority registrar) and the domains registered under them.
import {
  findDomainPda,
  findNamespacePda,
  getCreateNamespaceInstruction,
  getRegisterUnderNamespaceInstruction,
} from '../../platform/chain/registry';
import { exec, type Seed, type WalletName } from './seed';

export async function createNamespaces(s: Seed): Promise<void> {
  const { programId, w } = s;
  for (const tld of ['x1', 'xnt', 'xen']) {
    const [namespace] = await findNamespacePda(programId, tld);
    await exec(s, w.registrar, [
      getCreateNamespaceInstruction({ programId, authority: w.registrar.address, namespace, tld }),
    ]);
    s.seeded.namespaces[tld] = { account: namespace, authority: 'registrar' };
  }
}

async function registerDomain(s: Seed, label: string, tld: string, owner: WalletName, description: string) {
  const { programId, w } = s;
  const namespace = s.seeded.namespaces[tld]!.account;
  const [domain] = await findDomainPda(programId, namespace, label);
  await exec(s, w[owner], [
    getRegisterUnderNamespaceInstruction({
      programId,
      payer: w[owner].address,
      owner: w[owner].address,
      namespace,
      domain,
      label,
    }),
  ]);
  s.seeded.domains[`${label}.${tld}`] = { description, account: domain, owner };
}

/** satoshi.x1 shares its text with the dotted handle @satoshi.x1 (seeded just before). */
export async function registerDomains(s: Seed): Promise<void> {
  await registerDomain(s, 'satoshi', 'x1', 'satoshi', 'domain under x1; same text as handle @satoshi.x1');
  await registerDomain(s, 'forge', 'xnt', 'alice', 'domain under xnt owned by alice');
  await registerDomain(s, 'ember', 'xen', 'bob', 'domain under xen owned by bob');
}
