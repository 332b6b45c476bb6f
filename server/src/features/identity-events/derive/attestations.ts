// Rows of attestations: issued (or re-issued) and revoked by their issuer.
import { isoSeconds } from '@sigil/contract/webhooks';
import type { DeriveRows } from './context';
import { attestationRow, markAttestationRevoked, upsertAttestation } from './queries';
import { handleRef } from './state';

export const attestationRows = {
  attest: async (c, ix) => {
    const { issuer, handle, attestation } = ix.accounts;
    const ref = await handleRef(c, handle);
    if (!ref) return;
    const { platform, subject, expiresAt } = ix.args;
    await upsertAttestation(c.trx, {
      account: attestation,
      handle,
      issuer,
      platform,
      subject,
      expires_at: expiresAt,
    });
    c.emit({
      type: 'attestation.created',
      handle: ref,
      actors: { signer: c.signer, issuer },
      change: { attestation, platform, subject, expiresAt: expiresAt === 0 ? null : isoSeconds(expiresAt) },
    });
  },
  revoke_attestation: async (c, ix) => {
    const { issuer, attestation } = ix.accounts;
    const prior = await attestationRow(c.trx, attestation);
    await markAttestationRevoked(c.trx, attestation);
    c.emit({
      type: 'attestation.revoked',
      handle: prior ? await handleRef(c, prior.handle) : null,
      actors: { signer: c.signer, issuer },
      change: {
        attestation,
        platform: prior?.platform ?? null,
        subject: prior?.subject ?? null,
        revoked: { before: prior ? prior.revoked === 1 : null, after: true },
      },
    });
  },
} satisfies DeriveRows;
