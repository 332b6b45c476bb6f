// Test fixtures: SNS accounts written raw into a local chain at their real derived addresses (the local chain reads
// accounts no transaction wrote straight from the SVM, so every commitment sees them). Never used by production code.
import { ed25519 } from '@noble/curves/ed25519.js';
import { getAddressDecoder, getAddressEncoder, getProgramDerivedAddress, type Address } from '@solana/kit';
import { AccountState, getMintEncoder, getTokenEncoder, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import type { LocalChain } from '../../server/src/localchain';
import { restoreAccount } from '../../server/src/localchain/ledger';
import {
  SNS_NAME_PROGRAM_ID,
  SNS_NAME_TOKENIZER_ID,
  SNS_REGISTRY_HEADER_LEN,
  SNS_VALIDATION,
  snsKeys,
  snsSolRecordV1Message,
  SNS_ROOT_DOMAIN_ACCOUNT,
  SNS_RECORDS_CENTRAL_STATE,
} from '../../server/src/features/universal/sns';

const enc = (a: Address) => getAddressEncoder().encode(a) as Uint8Array;
const LAMPORTS = 10_000_000n;

export interface TestKey {
  secret: Uint8Array;
  address: Address;
}
export function testKey(): TestKey {
  const secret = ed25519.utils.randomSecretKey();
  return { secret, address: getAddressDecoder().decode(ed25519.getPublicKey(secret)) };
}

function registry(
  parent: Address,
  owner: Address,
  nameClass: Address | null,
  data: Uint8Array = new Uint8Array(),
): Uint8Array {
  const out = new Uint8Array(SNS_REGISTRY_HEADER_LEN + data.length);
  out.set(enc(parent), 0);
  out.set(enc(owner), 32);
  if (nameClass) out.set(enc(nameClass), 64);
  out.set(data, SNS_REGISTRY_HEADER_LEN);
  return out;
}

function place(chain: LocalChain, address: Address, owner: Address, data: Uint8Array) {
  restoreAccount(chain.svm, address, { lamports: LAMPORTS, owner, data, executable: false });
}

export async function placeSnsName(chain: LocalChain, labels: string[], owner: Address) {
  const keys = await snsKeys(labels);
  const parent = labels.length === 2 ? (await snsKeys([labels[1]!])).domain : SNS_ROOT_DOMAIN_ACCOUNT;
  place(chain, keys.domain, SNS_NAME_PROGRAM_ID, registry(parent, owner, null));
  return keys;
}

/** SOL record V1: 32-byte key + `signer`'s signature over the SDK's message (the owner's, when honest). */
export async function placeSolRecordV1(
  chain: LocalChain,
  labels: string[],
  recorded: Address,
  signer: TestKey,
  owner: Address,
) {
  const keys = await snsKeys(labels);
  const body = new Uint8Array(96);
  body.set(enc(recorded), 0);
  body.set(ed25519.sign(snsSolRecordV1Message(enc(recorded), keys.solRecordV1), signer.secret), 32);
  place(chain, keys.solRecordV1, SNS_NAME_PROGRAM_ID, registry(keys.domain, owner, null, body));
}

/** SOL record V2 (sns-records layout) with the given validations and ids. */
export async function placeSolRecordV2(
  chain: LocalChain,
  labels: string[],
  o: {
    content: Address;
    stalenessId: Address;
    roaId: Address;
    stalenessValidation?: number;
    roaValidation?: number;
    owner: Address;
  },
) {
  const keys = await snsKeys(labels);
  const body = new Uint8Array(8 + 32 + 32 + 32);
  const view = new DataView(body.buffer);
  view.setUint16(0, o.stalenessValidation ?? SNS_VALIDATION.Solana, true);
  view.setUint16(2, o.roaValidation ?? SNS_VALIDATION.Solana, true);
  view.setUint32(4, 32, true);
  body.set(enc(o.stalenessId), 8);
  body.set(enc(o.roaId), 40);
  body.set(enc(o.content), 72);
  place(chain, keys.solRecordV2, SNS_NAME_PROGRAM_ID, registry(keys.domain, o.owner, SNS_RECORDS_CENTRAL_STATE, body));
}

/** Tokenizes a placed name: owner becomes the NFT record PDA (as the tokenizer does), mint + holder's token account. */
export async function tokenizeSnsName(chain: LocalChain, labels: string[], holder: Address | null) {
  const keys = await snsKeys(labels);
  place(chain, keys.domain, SNS_NAME_PROGRAM_ID, registry(SNS_ROOT_DOMAIN_ACCOUNT, keys.nftRecord, null));
  const record = new Uint8Array(98);
  record[0] = 2; // ActiveRecord
  record.set(enc(keys.domain), 2);
  record.set(enc(keys.nftRecord), 34);
  record.set(enc(keys.mint), 66);
  place(chain, keys.nftRecord, SNS_NAME_TOKENIZER_ID, record);
  const mint = getMintEncoder().encode({
    mintAuthority: keys.nftRecord,
    supply: holder ? 1n : 0n,
    decimals: 0,
    isInitialized: true,
    freezeAuthority: null,
  }) as Uint8Array;
  place(chain, keys.mint, TOKEN_PROGRAM_ADDRESS, mint);
  if (holder) {
    const [tokenAccount] = await getProgramDerivedAddress({
      programAddress: SNS_NAME_TOKENIZER_ID,
      seeds: [new TextEncoder().encode('test-holder'), enc(holder)],
    });
    const token = getTokenEncoder().encode({
      mint: keys.mint,
      owner: holder,
      amount: 1n,
      delegate: null,
      state: AccountState.Initialized,
      isNative: null,
      delegatedAmount: 0n,
      closeAuthority: null,
    }) as Uint8Array;
    place(chain, tokenAccount, TOKEN_PROGRAM_ADDRESS, token);
  }
  return keys;
}
