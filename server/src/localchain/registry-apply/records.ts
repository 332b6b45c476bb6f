// Records: written by the handle's authority with the key rules of their kind, and verified by the recorded
// address itself (ed25519, signing the transaction) or by a secp256k1 proof in the same transaction (ETH/BTC).
import {
  decodeRecord,
  encodeRecord,
  findRecordPda,
  ADDRESS_RECORD_KEYS,
  RECORD_VALUE_MAX_BYTES,
  SYSVAR_INSTRUCTIONS_ADDRESS,
  TEXT_RECORD_KEY_PATTERN,
} from '../../platform/chain/registry';
import { expectPda, fail } from '../emulator-run';
import { verifySecp256k1Proof } from '../secp256k1';
import { byteLength, type RegistryRows } from './rows';

const ED25519_CHAINS = ['X1', 'SOL'];

export const recordRows = {
  set_record: async (emu, run, ix) => {
    const { programId } = emu;
    const feePayer = run.tx.accountKeys[0]!;
    const { authority, handle, record } = ix.accounts;
    const { kind, key, value } = ix.args;
    const data = run.loadHandle(handle);
    await run.requireAuthority(data, authority);
    const kindName = kind === 0 ? 'address' : 'text';
    if (kindName === 'address' ? !ADDRESS_RECORD_KEYS.includes(key) : !TEXT_RECORD_KEY_PATTERN.test(key)) {
      throw fail('InvalidRecord', `bad ${kindName} record key "${key}"`);
    }
    if (byteLength(value) === 0 || byteLength(value) > RECORD_VALUE_MAX_BYTES)
      throw fail('InvalidRecord', 'value must be 1..512 bytes');
    const bump = await expectPda(record, findRecordPda(programId, handle, kindName, key), 'record');
    run.writeProgramAccount(
      record,
      encodeRecord({
        handle,
        kind: kindName,
        key,
        value,
        authority,
        handleEpoch: data.registrationEpoch,
        verified: false,
        verifiedAt: 0,
        updatedAt: run.now,
        updatedSlot: run.slot,
        bump,
      }),
      feePayer,
    );
  },
  verify_record: async (_emu, run, ix) => {
    const feePayer = run.tx.accountKeys[0]!;
    const { authority, handle, record, verifier } = ix.accounts;
    const data = run.loadHandle(handle);
    await run.requireAuthority(data, authority);
    const rec = run.load(record, decodeRecord, 'record');
    if (rec.handle !== handle || rec.kind !== 'address')
      throw fail('InvalidRecord', 'not an address record of this handle');
    if (ED25519_CHAINS.includes(rec.key)) {
      // The recorded address itself signs this transaction (ed25519, verified by the processor).
      if (verifier !== rec.value)
        throw fail('VerificationFailed', `verifier must be the recorded address ${rec.value}`);
      run.requireSigner(verifier, 'verifier');
    } else {
      if (verifier !== SYSVAR_INSTRUCTIONS_ADDRESS)
        throw fail('VerificationFailed', 'ETH/BTC proofs are read from the instructions sysvar');
      if (!verifySecp256k1Proof(run.tx, rec.key, rec.value, record)) {
        throw fail('VerificationFailed', `no valid secp256k1 proof by ${rec.value} in this transaction`);
      }
    }
    run.writeProgramAccount(
      record,
      encodeRecord({ ...rec, verified: true, verifiedAt: run.now, updatedSlot: run.slot }),
      feePayer,
    );
  },
} satisfies RegistryRows;
