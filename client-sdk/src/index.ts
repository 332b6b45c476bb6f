// @sigil/sdk: the typed REST client for every operation, the resolve helpers with the spec's client-library
// classifications, Connect strings and signing, and the integrator's Connect proxy. Light and runtime-neutral
// (browsers, Node, edge): no Solana library and no schema library. Webhook verification is `@sigil/sdk/webhooks`;
// what needs @solana/kit (an optional peer) has entries of its own: `@sigil/sdk/x402` (the payer) and
// `@sigil/sdk/connect-tx` (the /verify-tx memo transaction).
export {
  createSigilClient,
  retryable,
  type DataOf,
  type ErrorCodeOf,
  type PathsWith,
  type ResultOf,
  type RetryOptions,
  type SigilClient,
  type SigilClientOptions,
  type SigilFailure,
  type SigilResult,
  type SigilSuccess,
  type TransportErrorCode,
  type components,
  type operations,
  type paths,
} from './client';
export { privyWallet, type PrivyWalletResult } from './privy';
export { giftState, notifyGift, type GiftNotifyResult, type GiftState } from './gifts';
export {
  classifyResolveFailure,
  resolveAddress,
  resolveName,
  reverseLookup,
  type Resolution,
  type ResolveFailure,
  type ResolveFailureKind,
  type ResolveOutcome,
  type ReverseResult,
  type UniversalChain,
  type UniversalResult,
} from './resolve';
export {
  buildSignInMessage,
  checkChallenge,
  handleControlString,
  memoString,
  signChallenge,
  signMessage,
  signSignIn,
  walletControlString,
  MEMO_PROGRAM_ID,
  type ChallengeFields,
  type Ed25519Signer,
  type SignInMessageFields,
} from './connect';
export {
  connectProxyNodeHandler,
  createConnectProxy,
  CONNECT_PROXY_OPERATIONS,
  type ConnectProxyOperation,
  type ConnectProxyOptions,
  type ConnectProxyRequest,
  type ConnectProxyResponse,
} from './connect-proxy';
