// Attestations: issued (or re-issued by the same issuer) on a handle per platform, and revoked by their issuer.
import { decodeAttestation, encodeAttestation, findAttestationPda } from '../../platform/chain/registry';
import { expectPda, fail } from '../emulator-run';
import { byteLength, type RegistryRows } from './rows';

export const attestationRows = {
  attest: async (emu, run, ix) => {
    const { programId } = emu;
    const feePayer = run.tx.accountKeys[0]!;
    const { issuer, handle, attestation } = ix.accounts;
    const { platform, subject, expiresAt } = ix.args;
    run.requireSigner(issuer, 'issuer');
    run.loadHandle(handle);
    if (!/^[a-z0-9_-]{1,32}$/.test(platform)) throw fail('InvalidRecord', `bad platform slug "${platform}"`);
    if (byteLength(subject) === 0 || byteLength(subject) > 128)
      throw fail('InvalidRecord', 'subject must be 1..128 bytes');
    const bump = await expectPda(attestation, findAttestationPda(programId, handle, platform), 'attestation');
    const existing = run.read(attestation);
    if (existing && decodeAttestation(attestation, existing.data).issuer !== issuer) {
      throw fail('NotAuthority', 'only the original issuer may re-issue this attestation');
    }
    run.writeProgramAccount(
      attestation,
      encodeAttestation({ handle, issuer, issuedAt: run.now, expiresAt, revoked: false, bump, platform, subject }),
      feePayer,
    );
  },
  revoke_attestation: async (_emu, run, ix) => {
    const feePayer = run.tx.accountKeys[0]!;
    const { issuer, attestation } = ix.accounts;
    run.requireSigner(issuer, 'issuer');
    const data = run.load(attestation, decodeAttestation, 'attestation');
    if (data.issuer !== issuer) throw fail('NotAuthority', 'only the issuer may revoke');
    run.writeProgramAccount(attestation, encodeAttestation({ ...data, revoked: true }), feePayer);
  },
} satisfies RegistryRows;
