// Rows of records: written by the authority or its delegate, verified, and the delegate itself.
import type { DeriveRows } from './context';
import { markRecordVerified, recordRow } from './queries';
import { handleRef, kvGet, kvSet, setRecord } from './state';

export const recordRows = {
  set_record: async (c, ix) => {
    const { authority, handle, record } = ix.accounts;
    await setRecord(c, handle, record, ix.args, { signer: c.signer, authority });
  },
  set_record_as_delegate: async (c, ix) => {
    const { delegate, handle, record } = ix.accounts;
    await setRecord(c, handle, record, ix.args, { signer: c.signer, delegate });
  },
  verify_record: async (c, ix) => {
    const { authority, handle, record, verifier } = ix.accounts;
    const ref = await handleRef(c, handle);
    if (!ref) return;
    const prior = await recordRow(c.trx, record);
    await markRecordVerified(c.trx, record);
    c.emit({
      type: 'record.verified',
      handle: ref,
      actors: { signer: c.signer, authority },
      change: {
        kind: (prior?.kind as 'address' | 'text' | undefined) ?? 'address',
        key: prior?.key ?? null,
        record,
        // X1/SOL records are verified by the recorded address signing: the verifier IS the value.
        value: prior?.value ?? (c.tx.signers.includes(verifier) ? verifier : null),
        verified: { before: prior ? prior.verified === 1 : null, after: true },
      },
    });
  },
  set_record_delegate: async (c, ix) => {
    const { authority, handle, delegateAccount } = ix.accounts;
    const prior = await kvGet<{ delegate: string }>(c, 'delegate', delegateAccount);
    await kvSet(c, 'delegate', delegateAccount, { delegate: ix.args.delegate });
    c.emit({
      type: 'record.delegate_set',
      handle: await handleRef(c, handle),
      actors: { signer: c.signer, authority, delegate: ix.args.delegate },
      change: { delegate: { before: prior?.delegate ?? null, after: ix.args.delegate } },
    });
  },
} satisfies DeriveRows;
