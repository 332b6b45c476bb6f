// Record delegates: the authority names one delegate per handle registration, who writes records in the
// authority's name.
import { encodeMarketAccount, encodeRecord, findRecordPda, MARKET_PDAS } from '../../platform/chain/registry';
import { expectPda, fail, RegistryFailure } from '../emulator-run';
import { readMarket, write, type MarketRows } from './accounts';

export const delegateRows = {
  set_record_delegate: async (emu, run, ix) => {
    const { programId } = emu;
    const { authority, handle, delegateAccount } = ix.accounts;
    const h = run.loadHandle(handle);
    await run.requireAuthority(h, authority);
    const bump = await expectPda(delegateAccount, MARKET_PDAS.recordDelegate(programId, handle), 'delegate');
    write(
      run,
      delegateAccount,
      encodeMarketAccount('RecordDelegate', {
        handle,
        delegate: ix.args.delegate,
        handleEpoch: h.registrationEpoch,
        bump,
      }),
    );
  },
  set_record_as_delegate: async (emu, run, ix) => {
    const { programId } = emu;
    const { delegate, handle, delegateAccount, record } = ix.accounts;
    run.requireSigner(delegate, 'delegate');
    await expectPda(delegateAccount, MARKET_PDAS.recordDelegate(programId, handle), 'delegate');
    const d = readMarket(run, emu, 'RecordDelegate', delegateAccount);
    if (!d) {
      // Anchor's account constraint, not the program's own code.
      run.logs.push(
        'Program log: AnchorError caused by account: delegate_account. Error Code: AccountNotInitialized. ' +
          'Error Number: 3012. Error Message: The program expected this account to be already initialized.',
      );
      throw new RegistryFailure({ Custom: 3012 }, 'DelegateAccountMissing: no record delegate is set');
    }
    const h = run.loadHandle(handle);
    if (d.delegate !== delegate || d.handleEpoch !== h.registrationEpoch)
      throw fail('NotAuthority', `${delegate} is not the record delegate of @${h.name}`);
    const authority = await run.authorityOf(h);
    if (!authority) throw fail('NotAuthority', `@${h.name} has no authority`);
    const kind = ix.args.kind === 0 ? 'address' : 'text';
    const bump = await expectPda(record, findRecordPda(programId, handle, kind, ix.args.key), 'record');
    // Written in the authority's name, so the record stays fresh under the service's staleness rule.
    write(
      run,
      record,
      encodeRecord({
        handle,
        kind,
        key: ix.args.key,
        value: ix.args.value,
        authority,
        handleEpoch: h.registrationEpoch,
        verified: false,
        verifiedAt: 0,
        updatedAt: run.now,
        updatedSlot: run.slot,
        bump,
      }),
    );
  },
} satisfies MarketRows;
