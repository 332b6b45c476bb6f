// Wallets for load generators: node:crypto ed25519 keys (signing is the wallet's cost, kept cheap and off the
// service), with their Solana addresses.
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { base58 } from '@scure/base';

export interface BenchWallet {
  address: string;
  privateKey: KeyObject;
}

const walletOf = (privateKey: KeyObject): BenchWallet => {
  const { x } = createPublicKey(privateKey).export({ format: 'jwk' });
  return { address: base58.encode(Buffer.from(x!, 'base64url')), privateKey };
};

export const randomWallet = () => walletOf(generateKeyPairSync('ed25519').privateKey);

/** PKCS#8 DER header of an ed25519 private key; the 32-byte seed follows. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export const walletFromSeed = (seed: Uint8Array) =>
  walletOf(createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' }));
