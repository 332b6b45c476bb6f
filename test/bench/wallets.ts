// Wallets for load generators: node:crypto ed25519 keys (signing is the wallet's cost, kept cheap and off the
// service), with their Solana addresses.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { base58 } from '@scure/base';

export interface BenchWallet {
  address: string;
  privateKey: KeyObject;
}

// The address is the public key's 32 bytes, the end of its SPKI DER. (Not through a JWK export: on Node 20 an Ed25519
// JWK export can deadlock the process when a garbage collection it triggers finalizes a key-generation job.)
const walletOf = (privateKey: KeyObject): BenchWallet => {
  const spki = createPublicKey(privateKey).export({ format: 'der', type: 'spki' });
  return { address: base58.encode(spki.subarray(-32)), privateKey };
};

export const randomWallet = () => walletOf(generateKeyPairSync('ed25519').privateKey);

/** PKCS#8 DER header of an ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export const walletFromSeed = (seed: Uint8Array) =>
  walletOf(createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' }));
