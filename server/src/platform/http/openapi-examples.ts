// Request and response examples of every operation, shown by /openapi.json and /docs. Values come from the demo
// scenario that `npm start` seeds (docs/local-chain.md): the wallets, handles, domains, records and agents are the
// scenario's own (alice, satoshi.x1, @scout …), answers were recorded from the service on it. Where the scenario
// has no fixed value (nonces, key and webhook ids, signatures, times), the example shows one of the right shape.
// Keyed by `METHOD /path` as the router declares it; server/src/openapi.test.ts checks that every
// operation has an entry and that each example passes the operation's own input and output schemas.

import { agentManifestJsonSchema } from '@sigil/contract/agents';
import { policyJsonSchema } from '@sigil/contract/gate';
import { eventCatalog, payExample } from '@sigil/contract/event-catalog';

export interface OperationExample {
  /** Path and query parameter values. */
  parameters?: Record<string, string>;
  /** The JSON request body. */
  request?: unknown;
  /** The success response body (none for a 204). */
  response?: unknown;
}

/** One key's OpenID Connect client as the service answers it (GET and PUT /v1/keys/{id}/oidc). */
const OIDC_CLIENT_EXAMPLE = {
  client_id: 'key_1ChLzwWxnxSmGPTygaf1vn',
  type: 'confidential',
  token_endpoint_auth_method: 'client_secret_basic',
  redirect_uris: ['https://app.example/api/auth/callback/sigil'],
  post_logout_redirect_uris: ['https://app.example/'],
  scopes: ['openid', 'offline_access', 'profile', 'wallet', 'attestations'],
  backchannel_logout_uri: 'https://app.example/api/auth/backchannel-logout',
  issuer: 'http://127.0.0.1:8787',
  created_at: 1795488926403,
  updated_at: 1795488926403,
};

// The session webhook routes' examples: one owner's key, wallet, pay webhook, delivery and attempt.
const OWNER_KEY = 'key_1ChLzwTap2x1Rk8qrvz1mH';
const OWNER_WALLET = 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T';
const PAY_WEBHOOK_OF_OWNER = {
  id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
  scope: { type: 'wallet', value: OWNER_WALLET, wallets: [OWNER_WALLET] },
  url: 'https://shop.example/hooks/sigil',
  event_types: ['payment.received', 'invoice.paid'],
  description: 'order payments',
  status: 'active',
  paused_reason: null,
  created_at: 1795488884,
  updated_at: 1795488884,
};
const OWNER_WEBHOOK = { ...PAY_WEBHOOK_OF_OWNER, stream: 'pay', state: 'active' };
const OWNER_EVENT = payExample('payment.received');
const OWNER_DELIVERY = {
  id: 'whdel_1ChLztVq2bW8nS5xKd7Rm3',
  webhook_id: OWNER_WEBHOOK.id,
  event_id: OWNER_EVENT.id,
  event_type: 'payment.received',
  status: 'delivered',
  attempts: 2,
  last_status: 204,
  last_error: null,
  response_ms: 84,
  next_attempt_at: null,
  created_at: 1795488884,
  delivered_at: 1795488896,
  test: false,
};
const OWNER_ATTEMPT = {
  attempt: 2,
  attempted_at: 1795488896240,
  status: 204,
  error: null,
  duration_ms: 84,
  headers: {
    'content-type': 'application/json',
    'Sigil-Signature': `t=1795488896,v1=${'9c'.repeat(32)}`,
    'Sigil-Event-Id': OWNER_EVENT.id,
    'Sigil-Event-Type': 'payment.received',
    'Sigil-Delivery-Id': OWNER_DELIVERY.id,
    'Sigil-Subscription-Id': OWNER_WEBHOOK.id,
    'webhook-id': OWNER_EVENT.id,
    'webhook-timestamp': '1795488896',
    'webhook-signature': 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
};

export const OPERATION_EXAMPLES: Record<string, OperationExample> = {
  'GET /health': {
    response: {
      ok: true,
    },
  },
  'GET /v1/health': {
    response: {
      status: 'ok',
      service: 'sigil',
      x402: true,
      rails: ['x1-native'],
      rpc: '127.0.0.1:8899',
      program: 'SigiLRegistry111111111111111111111111111111',
    },
  },
  'GET /version': {
    response: {
      service: 'sigil',
      version: '0.1.0',
      rpc: '127.0.0.1:8899',
      program: 'SigiLRegistry111111111111111111111111111111',
      chain: {
        version: '2.2.0',
        genesisHash: '5T5EYgeMp7Lq1rwESDNZWUyzC3XQUABxCfDcNDjSRq22',
        slot: 101,
      },
    },
  },
  'GET /v1/namespaces': {
    response: {
      namespaces: [
        {
          namespace: 'handle',
          source: 'sigil',
          configured: true,
        },
        {
          namespace: 'x1',
          source: 'sigil',
          configured: true,
        },
        {
          namespace: 'xnt',
          source: 'sigil',
          configured: true,
        },
        {
          namespace: 'xen',
          source: 'sigil',
          configured: true,
        },
        {
          namespace: 'sol',
          source: 'sns',
          configured: false,
        },
        {
          namespace: 'eth',
          source: 'ens',
          configured: false,
        },
      ],
    },
  },
  'GET /resolve/{name}': {
    parameters: {
      name: '@alice',
    },
    response: {
      input: '@alice',
      name: 'alice',
      namespace: 'handle',
      owner: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      tokenized: false,
      verification: 'owner',
    },
  },
  'GET /reverse/{address}': {
    parameters: {
      address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
    },
    response: {
      input: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      handle: 'alice',
    },
  },
  'GET /v1/resolve/{name}': {
    parameters: {
      name: 'alice',
    },
    response: {
      input: 'alice',
      name: 'alice',
      namespace: 'handle',
      owner: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      tokenized: false,
      verification: 'owner',
      authority: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      handleType: 0,
      addresses: [
        {
          chain: 'BTC',
          address: 'bc1qja9p3ycr45ldxr2havxlnt0lj5q5gx0z93zp84',
          verified: false,
          verifiedAt: null,
          updatedAt: 1795488924,
        },
        {
          chain: 'ETH',
          address: '0x34844d4147ca4726e64c28d6e45f051effea5537',
          verified: true,
          verifiedAt: 1795488924,
          updatedAt: 1795488924,
        },
        {
          chain: 'SOL',
          address: 'D3sqcPeLstyXt6a7MEKfeiocWr8h2C7aG8Z5xeFNM1Km',
          verified: true,
          verifiedAt: 1795488924,
          updatedAt: 1795488924,
        },
        {
          chain: 'X1',
          address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
          verified: true,
          verifiedAt: 1795488924,
          updatedAt: 1795488924,
        },
      ],
      slot: 102,
    },
  },
  'GET /v1/resolve-universal/{name}': {
    parameters: {
      name: 'alice',
      chain: 'SOL',
    },
    response: {
      input: 'alice',
      name: 'alice',
      namespace: 'handle',
      address: 'D3sqcPeLstyXt6a7MEKfeiocWr8h2C7aG8Z5xeFNM1Km',
      chain: 'SOL',
      source: 'sigil',
      verified: true,
    },
  },
  'POST /v1/resolve/batch': {
    request: {
      names: ['alice', 'satoshi.x1', 'nobody'],
    },
    response: {
      results: [
        {
          input: 'alice',
          ok: true,
          result: {
            input: 'alice',
            name: 'alice',
            namespace: 'handle',
            address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
            chain: 'X1',
            source: 'sigil',
            verified: true,
          },
        },
        {
          input: 'satoshi.x1',
          ok: true,
          result: {
            input: 'satoshi.x1',
            name: 'satoshi.x1',
            namespace: 'x1',
            address: '63tnwmawHBbw1kPHFQJEnAxpFp2o93YGuY8t5aAQCBxE',
            chain: 'X1',
            source: 'sigil',
            verified: true,
          },
        },
        {
          input: 'nobody',
          ok: false,
          error: {
            status: 404,
            code: 'HANDLE_NOT_REGISTERED',
            message: '@nobody is not registered',
          },
        },
      ],
    },
  },
  'POST /v1/auth/challenge': {
    request: {
      wallet: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
    },
    response: {
      nonce: '7AMR5wxxfm5Y69uBQB2TZP',
      handle: 'alice',
      challenge:
        'sigil-connect:v2:handle-control:key_1ChLzwTap2x1Rk8qrvz1mH:sigil-handles:ctl:v1:alice:1:7AMR5wxxfm5Y69uBQB2TZP',
      audience: 'key_1ChLzwTap2x1Rk8qrvz1mH',
      signature_encoding: 'base58',
      expires_at: 1795489226,
      proves: 'wallet-control+attestations',
      disclaimer:
        'Proves current control of this handle or wallet and the listed attestations only; it is not proof of legal identity, personhood or KYC.',
    },
  },
  'POST /v1/auth/verify': {
    request: {
      nonce: '7AMR5wxxfm5Y69uBQB2TZP',
      signature: '3Zbm1f5hKtV3GxkBWLBjydbcnUiDFLBW6JiFzEp1Ji2mWVXqHUX1fnXAwAGdQ7xeLcLYFXgqTvh5pTW3nmhRN1nT',
      signer: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
    },
    response: {
      token:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJoYW5kbGUiOiJhbGljZSIsInNyYyI6Im93bmVyIiwiaXNzIjoic2lnaWwiLCJzdWIiOiJGUkN2cVI1aXVaVnVUYW5qNEVybndpV1JMdVhQMldaUWVUVktZV1ZoV002VCIsImF1ZCI6ImtleV8xQ2hMendUYXAyeDFSazhxcnZ6MW1IIiwianRpIjoic2Vzc18xQ2hMendXOFdZWjRxdG9yWFhRVTdEIiwiaWF0IjoxNzk1NDg4OTI2LCJleHAiOjE3OTU1NzUzMjZ9.l1j_WM6eGuAdThFI5czCAC9br52JvB79pTLf9FfhzM8',
      token_type: 'Bearer',
      expires_at: 1795575326,
      handle: 'alice',
      address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      verified: ['github', 'x'],
      source: 'owner',
      proves: 'wallet-control+attestations',
      disclaimer:
        'Proves current control of this handle or wallet and the listed attestations only; it is not proof of legal identity, personhood or KYC.',
    },
  },
  'POST /v1/auth/verify-tx': {
    request: {
      nonce: '7AMR5wxxfm5Y69uBQB2TZP',
      signedTransaction: 'AbJ6…(base64 of the signed memo transaction)',
    },
    response: {
      token:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJoYW5kbGUiOiJhbGljZSIsInNyYyI6Im93bmVyIiwiaXNzIjoic2lnaWwiLCJzdWIiOiJGUkN2cVI1aXVaVnVUYW5qNEVybndpV1JMdVhQMldaUWVUVktZV1ZoV002VCIsImF1ZCI6ImtleV8xQ2hMendUYXAyeDFSazhxcnZ6MW1IIiwianRpIjoic2Vzc18xQ2hMendXOFdZWjRxdG9yWFhRVTdEIiwiaWF0IjoxNzk1NDg4OTI2LCJleHAiOjE3OTU1NzUzMjZ9.l1j_WM6eGuAdThFI5czCAC9br52JvB79pTLf9FfhzM8',
      token_type: 'Bearer',
      expires_at: 1795575326,
      handle: 'alice',
      address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      verified: ['github', 'x'],
      source: 'owner',
      proves: 'wallet-control+attestations',
      disclaimer:
        'Proves current control of this handle or wallet and the listed attestations only; it is not proof of legal identity, personhood or KYC.',
    },
  },
  'POST /v1/auth/verify-signin': {
    request: {
      nonce: '7AMR5wxxfm5Y69uBQB2TZP',
      signedMessage: 'cG9ydGFsLnNpZ2lsLnRlc3Qgd2FudHMgeW91IHRvIHNpZ24gaW4gd2l0aCB5b3VyIFNvbGFuYSBhY2NvdW50Og…',
      signature: '3Zbm1f5hKtV3GxkBWLBjydbcnUiDFLBW6JiFzEp1Ji2mWVXqHUX1fnXAwAGdQ7xeLcLYFXgqTvh5pTW3nmhRN1nT',
    },
    response: {
      token:
        'eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJoYW5kbGUiOiJhbGljZSIsInNyYyI6Im93bmVyIiwiaXNzIjoic2lnaWwiLCJzdWIiOiJGUkN2cVI1aXVaVnVUYW5qNEVybndpV1JMdVhQMldaUWVUVktZV1ZoV002VCIsImF1ZCI6ImtleV8xQ2hMendUYXAyeDFSazhxcnZ6MW1IIiwianRpIjoic2Vzc18xQ2hMendXOFdZWjRxdG9yWFhRVTdEIiwiaWF0IjoxNzk1NDg4OTI2LCJleHAiOjE3OTU1NzUzMjZ9.l1j_WM6eGuAdThFI5czCAC9br52JvB79pTLf9FfhzM8',
      token_type: 'Bearer',
      expires_at: 1795575326,
      handle: 'alice',
      address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      verified: ['github', 'x'],
      source: 'owner',
      proves: 'wallet-control+attestations',
      disclaimer:
        'Proves current control of this handle or wallet and the listed attestations only; it is not proof of legal identity, personhood or KYC.',
    },
  },
  'GET /v1/auth/session': {
    response: {
      handle: 'alice',
      address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      verified: ['github', 'x'],
      source: 'owner',
      proves: 'wallet-control+attestations',
      disclaimer:
        'Proves current control of this handle or wallet and the listed attestations only; it is not proof of legal identity, personhood or KYC.',
    },
  },
  'POST /v1/auth/logout': {
    response: { revoked: true },
  },
  'POST /v1/auth/sessions/revoke': {
    request: { wallet: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T' },
    response: { revoked: 2 },
  },
  'GET /v1/keys/{id}/sessions': {
    parameters: { id: 'key_1ChLzwWxnxSmGPTygaf1vn' },
    response: {
      sessions: [
        {
          jti: 'sess_1ChLzwTap2x1Rk8qrvz1mH',
          address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
          handle: 'alice',
          source: 'owner',
          created_at: 1795488926403,
          expires_at: 1795575326403,
          amr: 'sigil-signature',
        },
      ],
    },
  },
  'DELETE /v1/keys/{id}/sessions/{jti}': {
    parameters: { id: 'key_1ChLzwWxnxSmGPTygaf1vn', jti: 'sess_1ChLzwTap2x1Rk8qrvz1mH' },
    response: { revoked: true },
  },
  'POST /v1/keys/{id}/sessions/revoke': {
    parameters: { id: 'key_1ChLzwWxnxSmGPTygaf1vn' },
    request: { wallet: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T' },
    response: { revoked: 2 },
  },
  'GET /v1/oidc/clients': {
    response: {
      clients: [OIDC_CLIENT_EXAMPLE],
    },
  },
  'GET /v1/keys/{id}/oidc': {
    parameters: { id: 'key_1ChLzwWxnxSmGPTygaf1vn' },
    response: {
      client: OIDC_CLIENT_EXAMPLE,
    },
  },
  'PUT /v1/keys/{id}/oidc': {
    parameters: { id: 'key_1ChLzwWxnxSmGPTygaf1vn' },
    request: {
      type: 'confidential',
      redirect_uris: ['https://app.example/api/auth/callback/sigil'],
      post_logout_redirect_uris: ['https://app.example/'],
      backchannel_logout_uri: 'https://app.example/api/auth/backchannel-logout',
    },
    response: {
      client: OIDC_CLIENT_EXAMPLE,
      client_secret: 'sigil_cs_6Fq2cX1nT9vJbP4kWm8sYzR3aLhE7uD5gQoN2iVtK9xB',
    },
  },
  'DELETE /v1/keys/{id}/oidc': {
    parameters: { id: 'key_1ChLzwWxnxSmGPTygaf1vn' },
    response: { deleted: true },
  },
  'POST /v1/keys': {
    request: {
      name: 'my backend',
    },
    response: {
      key: {
        id: 'key_1ChLzwWxnxSmGPTygaf1vn',
        name: 'my backend',
        tier: 'free',
        prefix: 'sigil_sk_F93Q',
        created_at: 1795488926403,
        revoked_at: null,
        last_used_at: null,
      },
      secret: 'sigil_sk_F93Q8AegF13NFFZrDGqa95JPPRwdgbAWLZyM986Rk3H1',
    },
  },
  'GET /v1/keys': {
    response: {
      keys: [
        {
          id: 'key_1ChLzwWxnxSmGPTygaf1vn',
          name: 'my backend',
          tier: 'free',
          prefix: 'sigil_sk_F93Q',
          created_at: 1795488926403,
          revoked_at: null,
          last_used_at: null,
          usage: {
            minute: 0,
            day: 0,
          },
        },
      ],
    },
  },
  'DELETE /v1/keys/{id}': {
    parameters: {
      id: 'key_1ChLzwWxnxSmGPTygaf1vn',
    },
    response: {
      key: {
        id: 'key_1ChLzwWxnxSmGPTygaf1vn',
        name: 'my backend',
        tier: 'free',
        prefix: 'sigil_sk_F93Q',
        created_at: 1795488926403,
        revoked_at: 1795488926471,
        last_used_at: null,
      },
    },
  },
  'GET /v1/usage': {
    response: {
      tier: 'free',
      limits: {
        minute: 300,
        day: 15000,
      },
      usage: {
        minute: 0,
        day: 0,
      },
      reset: {
        minute: 1795488960000,
        day: 1795564800000,
      },
      keys: [
        {
          id: 'key_1ChLzwWxnxSmGPTygaf1vn',
          name: 'my backend',
          tier: 'free',
          revoked_at: null,
          limits: {
            minute: 300,
            day: 15000,
          },
          usage: {
            minute: 0,
            day: 0,
          },
        },
      ],
    },
  },
  'POST /v1/pay/webhooks/challenge': {
    request: {
      scope: '@alice',
      wallet: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      url: 'https://shop.example/hooks/sigil',
      event_types: ['payment.*'],
      description: 'order payments',
    },
    response: {
      nonce: 'whch_1ChLztUbz3XJ6yQm2vKd4T',
      message:
        'sigil-pay-webhook:v1\nkey: key_1ChLzwTap2x1Rk8qrvz1mH\nscope: @alice\nurl: https://shop.example/hooks/sigil\nevents: payment.*\nnonce: whch_1ChLztUbz3XJ6yQm2vKd4T\nexpires: 1795489484',
      expires_at: 1795489484,
    },
  },
  'POST /v1/pay/webhooks': {
    request: {
      nonce: 'whch_1ChLztUbz3XJ6yQm2vKd4T',
      signature: '3Zbm1f5hKtV3GxkBWLBjydbcnUiDFLBW6JiFzEp1Ji2mWVXqHUX1fnXAwAGdQ7xeLcLYFXgqTvh5pTW3nmhRN1nT',
    },
    response: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
      scope: {
        type: 'name',
        value: '@alice',
        wallets: ['FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T', 'D3sqcPeLstyXt6a7MEKfeiocWr8h2C7aG8Z5xeFNM1Km'],
      },
      url: 'https://shop.example/hooks/sigil',
      event_types: ['payment.received', 'payment.binding_verified'],
      description: 'order payments',
      status: 'active',
      paused_reason: null,
      created_at: 1795488884,
      updated_at: 1795488884,
      secret: 'whsec_8dVb3kQ2mXr7YpJ4nT6sWc9Lh5Fz1Ga',
    },
  },
  'GET /v1/pay/webhooks': {
    response: {
      webhooks: [
        {
          id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
          scope: {
            type: 'name',
            value: '@alice',
            wallets: ['FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T', 'D3sqcPeLstyXt6a7MEKfeiocWr8h2C7aG8Z5xeFNM1Km'],
          },
          url: 'https://shop.example/hooks/sigil',
          event_types: ['payment.received', 'payment.binding_verified'],
          description: 'order payments',
          status: 'active',
          paused_reason: null,
          created_at: 1795488884,
          updated_at: 1795488884,
        },
      ],
    },
  },
  'GET /v1/pay/webhooks/{id}': {
    parameters: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
    },
    response: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
      scope: {
        type: 'name',
        value: '@alice',
        wallets: ['FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T', 'D3sqcPeLstyXt6a7MEKfeiocWr8h2C7aG8Z5xeFNM1Km'],
      },
      url: 'https://shop.example/hooks/sigil',
      event_types: ['payment.received', 'payment.binding_verified'],
      description: 'order payments',
      status: 'active',
      paused_reason: null,
      created_at: 1795488884,
      updated_at: 1795488884,
    },
  },
  'DELETE /v1/pay/webhooks/{id}': {
    parameters: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
    },
  },
  'GET /v1/pay/webhooks/{id}/deliveries': {
    parameters: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
      limit: '50',
    },
    response: {
      deliveries: [
        {
          id: 'whdel_1ChLztVq2bW8nS5xKd7Rm3',
          webhook_id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
          event_id: 'pev_1ChLztVa9cE4uT6yLp2Qn8',
          event_type: 'payment.received',
          status: 'delivered',
          attempts: 1,
          last_status: 200,
          last_error: null,
          response_ms: 84,
          next_attempt_at: null,
          created_at: 1795488884,
          delivered_at: 1795488885,
          test: false,
        },
      ],
    },
  },
  'POST /v1/pay/webhooks/{id}/rotate-secret': {
    parameters: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
    },
    response: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
      secret: 'whsec_3Nq7Lk2Wd9Xc5Rv8Tb4Hm6Jy1Pz0Fa',
    },
  },
  'POST /v1/pay/webhooks/{id}/resume': {
    parameters: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
    },
    response: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
      scope: {
        type: 'name',
        value: '@alice',
        wallets: ['FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T', 'D3sqcPeLstyXt6a7MEKfeiocWr8h2C7aG8Z5xeFNM1Km'],
      },
      url: 'https://shop.example/hooks/sigil',
      event_types: ['payment.received', 'payment.binding_verified'],
      description: 'order payments',
      status: 'active',
      paused_reason: null,
      created_at: 1795488884,
      updated_at: 1795488884,
    },
  },
  'POST /v1/pay/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    parameters: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
      deliveryId: 'whdel_1ChLztVq2bW8nS5xKd7Rm3',
    },
    response: {
      id: 'whdel_1ChLztVq2bW8nS5xKd7Rm3',
      webhook_id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
      event_id: 'pev_1ChLztVa9cE4uT6yLp2Qn8',
      event_type: 'payment.received',
      status: 'pending',
      attempts: 0,
      last_status: null,
      last_error: null,
      response_ms: null,
      next_attempt_at: 1795488944,
      created_at: 1795488884,
      delivered_at: null,
      test: false,
    },
  },
  'POST /v1/pay/webhooks/{id}/test': {
    parameters: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
    },
    response: {
      id: 'whdel_1ChLztWk4dN7pQ2sXb9Lc5',
      webhook_id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
      event_id: 'pev_test_1ChLztWk4dN7pQ2sXb9Lc5',
      event_type: 'payment.received',
      status: 'pending',
      attempts: 0,
      last_status: null,
      last_error: null,
      response_ms: null,
      next_attempt_at: 1795488884,
      created_at: 1795488884,
      delivered_at: null,
      test: true,
    },
  },
  'GET /v1/agents/{handle}': {
    parameters: {
      handle: '@scout',
    },
    response: {
      name: 'scout',
      handle: '2ZAe8nHneABPM8WjnmmaZyWrJHUd5VaUKXeJa5fbCjLr',
      handleType: 3,
      agent: true,
      manifestUrl: 'https://agents.example/scout/manifest.json',
      endpoints: {
        mcp: 'https://agents.example/scout/mcp',
      },
      manifest: {
        sigil: {
          version: 1,
          name: 'scout',
          network: 'testnet',
          handle: '2ZAe8nHneABPM8WjnmmaZyWrJHUd5VaUKXeJa5fbCjLr',
        },
        identity: {
          attestation: 'CNUUsNnMrP542dXarow8RAMnEEAW3beqfaYNz5FnJSzX',
          description: 'Demo agent @scout: attested; its x402 endpoint answers 402 paying the verified SOL address',
        },
        endpoints: [
          {
            type: 'mcp',
            url: 'https://agents.example/scout/mcp',
          },
          {
            type: 'x402',
            url: 'https://127.0.0.1:46075/scout/x402',
          },
        ],
        payment: {
          addresses: [
            {
              coinType: 501,
              address: 'EejKdmNGrhoX7CzxWTQMSMLafUEf5vNgAfhiJ7qRz1q7',
              verified: true,
            },
          ],
          x402: {
            network: 'solana:5T5EYgeMp7Lq1rwESDNZWUyzC3XQUABx',
            asset: 'So11111111111111111111111111111111111111112',
            scheme: 'exact',
            facilitator: 'https://127.0.0.1:46075/facilitator',
          },
        },
      },
    },
  },
  'GET /v1/agents/{handle}/level': {
    parameters: {
      handle: '@scout',
    },
    response: {
      handle: 'scout',
      slot: 116,
      level: 'L2',
      reached: [
        {
          level: 'L0',
          reason: '@scout has an agent.manifest record: https://agents.example/scout/manifest.json',
        },
        {
          level: 'L1',
          reason:
            'the manifest references attestation CNUUsNnMrP542dXarow8RAMnEEAW3beqfaYNz5FnJSzX (agent-audit: scout-audited, issuer GstJYgUcS6iaNtJBw8mGrPFNDsjpACbaZYhrSU2QJiJq), live on chain',
        },
        {
          level: 'L2',
          reason:
            'https://127.0.0.1:46075/scout/x402 answered 402 asking to pay EejKdmNGrhoX7CzxWTQMSMLafUEf5vNgAfhiJ7qRz1q7, a signature-verified address of @scout',
        },
      ],
      next: null,
    },
  },
  'POST /v1/agents/validate': {
    request: {
      handle: '@scout',
      manifest: {
        sigil: {
          version: 1,
          name: 'scout',
          network: 'testnet',
          handle: '2ZAe8nHneABPM8WjnmmaZyWrJHUd5VaUKXeJa5fbCjLr',
        },
        identity: {
          attestation: 'CNUUsNnMrP542dXarow8RAMnEEAW3beqfaYNz5FnJSzX',
          description: 'Demo agent @scout: attested; its x402 endpoint answers 402 paying the verified SOL address',
        },
        endpoints: [
          {
            type: 'mcp',
            url: 'https://agents.example/scout/mcp',
          },
          {
            type: 'x402',
            url: 'https://127.0.0.1:46075/scout/x402',
          },
        ],
        payment: {
          addresses: [
            {
              coinType: 501,
              address: 'EejKdmNGrhoX7CzxWTQMSMLafUEf5vNgAfhiJ7qRz1q7',
              verified: true,
            },
          ],
          x402: {
            network: 'solana:5T5EYgeMp7Lq1rwESDNZWUyzC3XQUABx',
            asset: 'So11111111111111111111111111111111111111112',
            scheme: 'exact',
            facilitator: 'https://127.0.0.1:46075/facilitator',
          },
        },
      },
    },
    response: {
      name: 'scout',
      handle: '2ZAe8nHneABPM8WjnmmaZyWrJHUd5VaUKXeJa5fbCjLr',
      network: 'testnet',
      valid: true,
      errors: [],
      note: 'Checked shape and identity only (name, network, handle account), without reading the chain. GET /v1/agents/{handle} also checks the handle on chain and that every payment address marked verified matches a signature-verified address record.',
    },
  },
  // The real document: it is a pure function of the contract.
  'GET /schemas/agent-manifest.v1.json': { response: agentManifestJsonSchema() },
  'GET /v1/search/handles': {
    parameters: {
      q: 'sc',
      mode: 'prefix',
      agent: 'true',
    },
    response: {
      items: [
        {
          name: 'scout',
          account: '2ZAe8nHneABPM8WjnmmaZyWrJHUd5VaUKXeJa5fbCjLr',
          owner: '6Hq41AUZtBqyHieN1vYarRc6ZmNSQFhEJ1YnejVeBsYQ',
          agent: true,
          registeredSlot: 57,
        },
      ],
      nextCursor: null,
    },
  },

  'PATCH /v1/keys/{id}': {
    parameters: {
      id: 'key_1ChLzwWxnxSmGPTygaf1vn',
    },
    request: {
      name: 'my backend (prod)',
    },
    response: {
      key: {
        id: 'key_1ChLzwWxnxSmGPTygaf1vn',
        name: 'my backend (prod)',
        tier: 'free',
        prefix: 'sigil_sk_F93Q',
        created_at: 1795488926403,
        revoked_at: null,
        last_used_at: 1795489002117,
      },
    },
  },
  'POST /v1/pay/webhooks/{id}/recover': {
    parameters: {
      id: 'whsub_1ChLztUv8xJ3tq7QmA2Zr9',
    },
    request: {
      since: '2026-11-23T00:00:00Z',
    },
    response: {
      requeued: 2,
      pending: 2,
    },
  },
  'POST /privy/wallet': {
    request: {
      identityToken:
        'eyJhbGciOiJFUzI1NiIsInR5cCI6IkpXVCIsImtpZCI6InByaXZ5In0.eyJpc3MiOiJwcml2eS5pbyIsImF1ZCI6ImNscHJpdnlhcHAwMDAwMDAwMDAwMDAwMDAiLCJzdWIiOiJkaWQ6cHJpdnk6Y2xwcml2eXVzZXIwMDAwMDAwMDAwMDAwIiwiaWF0IjoxNzk1NDkyODAwLCJleHAiOjE3OTU0OTY0MDB9.MEUCIQDxampleSignatureOnlyXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX',
    },
    response: {
      user: 'did:privy:clprivyuser0000000000000',
      wallets: [
        {
          address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
          embedded: true,
          handle: 'alice',
          attestations: ['github', 'x'],
        },
      ],
      slot: 118,
    },
  },
  // The demo scenario's pending gift: @ribbon from dave to erin (docs/local-chain.md).
  'POST /gift/notify': {
    request: {
      signature: '4DWLtyNQDCZ7mLZL72iteDkrh4jWuMfW37Fqzsq9KoJPicSqJND6m4S6RJjihAzLc8eBZwNeg28nK43BhqhQRgZS',
    },
    response: {
      signature: '4DWLtyNQDCZ7mLZL72iteDkrh4jWuMfW37Fqzsq9KoJPicSqJND6m4S6RJjihAzLc8eBZwNeg28nK43BhqhQRgZS',
      slot: 110,
      gifts: [
        {
          voucher: '4jdNYXVqz5nVTmxR1HqwrLWe6XctkAx5t7mdAvZy4vyY',
          handle: { account: '5fVbsVAMra1hE2c9CeKZjPhh8PXBj1awKJEKEFuEXQH4', name: 'ribbon' },
          creator: 'AE3E1w87XV3K5Mye9W9V4REWo72PvZExJe6EMyGyviKF',
          recipient: 'EoRge156qCxpbu4DnyCtmbAZBVUDpZKJb9v4Nq6P3RDa',
          expiresAt: '2026-12-27T00:00:44Z',
          event: { id: 'iev_RbXEAPpwCKNZ9juSpUyVBG', status: 'logged', sequence: 87 },
        },
      ],
    },
  },
  'GET /gift/{voucher}': {
    parameters: { voucher: '4jdNYXVqz5nVTmxR1HqwrLWe6XctkAx5t7mdAvZy4vyY' },
    response: {
      voucher: '4jdNYXVqz5nVTmxR1HqwrLWe6XctkAx5t7mdAvZy4vyY',
      state: 'claimable',
      handle: { account: '5fVbsVAMra1hE2c9CeKZjPhh8PXBj1awKJEKEFuEXQH4', name: 'ribbon' },
      creator: 'AE3E1w87XV3K5Mye9W9V4REWo72PvZExJe6EMyGyviKF',
      recipient: 'EoRge156qCxpbu4DnyCtmbAZBVUDpZKJb9v4Nq6P3RDa',
      expiresAt: '2026-12-27T00:00:44Z',
    },
  },
  'GET /v1/reverse/{address}': {
    parameters: {
      address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
    },
    response: {
      input: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      handle: 'alice',
      failedRule: null,
      pointedHandle: 'alice',
      forwardMatch: true,
      authority: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
      pointer: {
        account: '3rL5LubrHxCiPrNxZmxLj2g175suAEfAJBGajUZhh8RP',
        handleAccount: 'AmeJ81dVYxEjFPkhJ82y4Dv4N1PcJjM5qM9nS34LguNH',
        setSlot: 9,
        setAt: 1795492838,
      },
      slot: 118,
    },
  },
  'POST /v1/reverse/batch': {
    request: {
      addresses: ['FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T', '2GUCF9knG5rvy6Qc8PC7iSX7dhEeFY6oqzgNBzfWDXLN'],
    },
    response: {
      results: [
        {
          input: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
          ok: true,
          result: {
            input: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
            address: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
            handle: 'alice',
            failedRule: null,
            pointedHandle: 'alice',
            forwardMatch: true,
            authority: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
            pointer: {
              account: '3rL5LubrHxCiPrNxZmxLj2g175suAEfAJBGajUZhh8RP',
              handleAccount: 'AmeJ81dVYxEjFPkhJ82y4Dv4N1PcJjM5qM9nS34LguNH',
              setSlot: 9,
              setAt: 1795492838,
            },
            slot: 118,
          },
        },
        {
          input: '2GUCF9knG5rvy6Qc8PC7iSX7dhEeFY6oqzgNBzfWDXLN',
          ok: true,
          result: {
            input: '2GUCF9knG5rvy6Qc8PC7iSX7dhEeFY6oqzgNBzfWDXLN',
            address: '2GUCF9knG5rvy6Qc8PC7iSX7dhEeFY6oqzgNBzfWDXLN',
            handle: null,
            failedRule: 'no-pointer',
            pointedHandle: null,
            forwardMatch: false,
            authority: null,
            pointer: null,
            slot: 118,
          },
        },
      ],
      slot: 118,
    },
  },
  'POST /v1/gate/check': {
    request: {
      subject: {
        handle: '@alice',
      },
      policyId: 'gpol_1ChM5v5VBj9auWf7H2gMmX',
    },
    response: {
      decision: 'allow',
      policyId: 'gpol_1ChM5v5VBj9auWf7H2gMmX',
      version: 2,
      policyHash: '6ec923341b44b8764f51b80fa5b7014f230a412d0b841146804d892786a6b3dc',
      subject: {
        wallet: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
        handle: 'alice',
      },
      slot: 119,
      evaluatedAt: 1795492841,
      validUntil: 1795492901,
      reasons: [
        {
          path: '/all',
          result: true,
          evidence: {},
        },
        {
          path: '/all/0/handle.owned',
          result: true,
          evidence: {
            handle: 'alice',
            authority: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
            source: 'owner',
          },
        },
        {
          path: '/all/1/record.verified',
          result: true,
          evidence: {
            handle: 'alice',
            chain: 'SOL',
            address: 'D3sqcPeLstyXt6a7MEKfeiocWr8h2C7aG8Z5xeFNM1Km',
            stale: false,
            verifiedAt: 1795492839,
          },
        },
        {
          path: '/all/2/attestation',
          result: true,
          evidence: {
            handle: 'alice',
            platform: 'x',
            attestation: {
              account: '9Q2WhAenrKetsJies1MUKqSNxME6QA4egE2tTzbmxUsc',
              issuer: 'GstJYgUcS6iaNtJBw8mGrPFNDsjpACbaZYhrSU2QJiJq',
              subject: 'alice_onchain',
              issuedAt: 1795492839,
              expiresAt: 0,
              revoked: false,
            },
          },
        },
      ],
    },
  },
  'POST /v1/gate/policies': {
    request: {
      name: 'verified SOL holders',
      policy: {
        all: [
          {
            'handle.owned': {},
          },
          {
            'record.verified': {
              chain: 'SOL',
            },
          },
        ],
      },
    },
    response: {
      id: 'gpol_1ChM5v5VBj9auWf7H2gMmX',
      name: 'verified SOL holders',
      version: 1,
      policyHash: '21c73c2fa0320b052b765f9f943d07a80250e148d2cb753c2fb37f149640b46c',
      createdAt: 1795492840,
      updatedAt: 1795492840,
      policy: {
        all: [
          {
            'handle.owned': {},
          },
          {
            'record.verified': {
              chain: 'SOL',
            },
          },
        ],
      },
    },
  },
  'GET /v1/gate/policies': {
    response: {
      policies: [
        {
          id: 'gpol_1ChM5v5VBj9auWf7H2gMmX',
          name: 'verified SOL holders',
          version: 1,
          policyHash: '21c73c2fa0320b052b765f9f943d07a80250e148d2cb753c2fb37f149640b46c',
          createdAt: 1795492840,
          updatedAt: 1795492840,
        },
      ],
    },
  },
  'GET /v1/gate/policies/{id}': {
    parameters: {
      id: 'gpol_1ChM5v5VBj9auWf7H2gMmX',
      version: '1',
    },
    response: {
      id: 'gpol_1ChM5v5VBj9auWf7H2gMmX',
      name: 'verified SOL holders',
      version: 1,
      policyHash: '21c73c2fa0320b052b765f9f943d07a80250e148d2cb753c2fb37f149640b46c',
      createdAt: 1795492840,
      updatedAt: 1795492840,
      policy: {
        all: [
          {
            'handle.owned': {},
          },
          {
            'record.verified': {
              chain: 'SOL',
            },
          },
        ],
      },
    },
  },
  'PUT /v1/gate/policies/{id}': {
    parameters: {
      id: 'gpol_1ChM5v5VBj9auWf7H2gMmX',
    },
    request: {
      name: 'verified SOL holders',
      policy: {
        all: [
          {
            'handle.owned': {},
          },
          {
            'record.verified': {
              chain: 'SOL',
            },
          },
          {
            attestation: {
              platform: 'x',
            },
          },
        ],
      },
    },
    response: {
      id: 'gpol_1ChM5v5VBj9auWf7H2gMmX',
      name: 'verified SOL holders',
      version: 2,
      policyHash: '6ec923341b44b8764f51b80fa5b7014f230a412d0b841146804d892786a6b3dc',
      createdAt: 1795492840,
      updatedAt: 1795492841,
      policy: {
        all: [
          {
            'handle.owned': {},
          },
          {
            'record.verified': {
              chain: 'SOL',
            },
          },
          {
            attestation: {
              platform: 'x',
            },
          },
        ],
      },
    },
  },
  'DELETE /v1/gate/policies/{id}': {
    parameters: {
      id: 'gpol_1ChM5v5VBj9auWf7H2gMmX',
    },
  },
  'GET /.well-known/jwks.json': {
    response: {
      keys: [
        {
          kty: 'OKP',
          crv: 'Ed25519',
          x: 'Mxy7GZwPPEYdiTwarKu5O6eSU8MKs2nTzuB1xSPb5aY',
          kid: 'zExm1hrVasVhcM1bq0wK_pEuQalWpfQ4-jz9FFb99XM',
          alg: 'EdDSA',
          use: 'sig',
        },
      ],
    },
  },
  'POST /v1/identity/webhooks': {
    request: {
      scope: '@alice',
      url: 'https://shop.example/hooks/sigil-identity',
      event_types: ['record', 'primary.set'],
      description: 'alice profile',
    },
    response: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
      scope: {
        type: 'name',
        value: '@alice',
      },
      url: 'https://shop.example/hooks/sigil-identity',
      event_types: ['record.*', 'primary.set'],
      description: 'alice profile',
      status: 'active',
      paused_reason: null,
      from_sequence: 1,
      created_at: 1795492841,
      updated_at: 1795492841,
      secret: 'whsec_vaUuc1XdtbTs2vt0F+6mkeLrNm2u6U9p',
    },
  },
  'GET /v1/identity/webhooks': {
    response: {
      webhooks: [
        {
          id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
          scope: {
            type: 'name',
            value: '@alice',
          },
          url: 'https://shop.example/hooks/sigil-identity',
          event_types: ['record.*', 'primary.set'],
          description: 'alice profile',
          status: 'active',
          paused_reason: null,
          from_sequence: 1,
          created_at: 1795492841,
          updated_at: 1795492841,
        },
      ],
    },
  },
  'GET /v1/identity/webhooks/{id}': {
    parameters: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
    },
    response: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
      scope: {
        type: 'name',
        value: '@alice',
      },
      url: 'https://shop.example/hooks/sigil-identity',
      event_types: ['record.*', 'primary.set'],
      description: 'alice profile',
      status: 'active',
      paused_reason: null,
      from_sequence: 1,
      created_at: 1795492841,
      updated_at: 1795492841,
    },
  },
  'DELETE /v1/identity/webhooks/{id}': {
    parameters: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
    },
  },
  'GET /v1/identity/webhooks/{id}/deliveries': {
    parameters: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
      limit: '50',
    },
    response: {
      deliveries: [
        {
          id: 'whdel_1ChM5v6QN5nj4boj6qbnkK',
          webhook_id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
          event_id: 'iev_1ChM5v6QQRyhSwNMK6MjyR',
          event_type: 'handle.registered',
          status: 'pending',
          attempts: 0,
          last_status: null,
          last_error: null,
          response_ms: null,
          next_attempt_at: 1795492841,
          created_at: 1795492841,
          delivered_at: null,
          test: true,
        },
      ],
    },
  },
  'POST /v1/identity/webhooks/{id}/rotate-secret': {
    parameters: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
    },
    response: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
      secret: 'whsec_y8EuVvfxvPqPE2tj5AXcXNNWxLHZyh/y',
    },
  },
  'POST /v1/identity/webhooks/{id}/resume': {
    parameters: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
    },
    response: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
      scope: {
        type: 'name',
        value: '@alice',
      },
      url: 'https://shop.example/hooks/sigil-identity',
      event_types: ['record.*', 'primary.set'],
      description: 'alice profile',
      status: 'active',
      paused_reason: null,
      from_sequence: 1,
      created_at: 1795492841,
      updated_at: 1795492841,
    },
  },
  'POST /v1/identity/webhooks/{id}/deliveries/{deliveryId}/redeliver': {
    parameters: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
      deliveryId: 'whdel_1ChM5v6QN5nj4boj6qbnkK',
    },
    response: {
      id: 'whdel_1ChM5v6QN5nj4boj6qbnkK',
      webhook_id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
      event_id: 'iev_1ChM5v6QQRyhSwNMK6MjyR',
      event_type: 'handle.registered',
      status: 'pending',
      attempts: 0,
      last_status: null,
      last_error: null,
      response_ms: null,
      next_attempt_at: 1795492841,
      created_at: 1795492841,
      delivered_at: null,
      test: true,
    },
  },
  'POST /v1/identity/webhooks/{id}/test': {
    parameters: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
    },
    response: {
      id: 'whdel_1ChM5v6QN5nj4boj6qbnkK',
      webhook_id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
      event_id: 'iev_1ChM5v6QQRyhSwNMK6MjyR',
      event_type: 'handle.registered',
      status: 'pending',
      attempts: 0,
      last_status: null,
      last_error: null,
      response_ms: null,
      next_attempt_at: 1795492841,
      created_at: 1795492841,
      delivered_at: null,
      test: true,
    },
  },
  'POST /v1/identity/webhooks/{id}/recover': {
    parameters: {
      id: 'whsub_1ChM5v6JAGywKhWvkcuUgR',
    },
    request: {
      since: '2026-11-23T00:00:00Z',
    },
    response: {
      requeued: 2,
      pending: 2,
    },
  },
  'GET /v1/identity/events': {
    parameters: {
      handle: 'alice',
      limit: '2',
    },
    response: {
      events: [
        {
          schema: 'sigil.identity-events/v1',
          id: 'iev_Aw8fy46uwYkN6FAXoSRvpw',
          sequence: 4,
          notice: 'Notification only: the chain is the source of truth.',
          chain: {
            signature: 'W7Fy2usVSny4BX6nThu2wRLXd26M956QYa1VAaYn3WAoi8FxeLNUip4T1RDJzHX6UVX6jAqyJhotXpgXGeQJRay',
            ixIndex: 0,
            innerIndex: -1,
            slot: 8,
            blockTime: '2026-11-24T04:00:59Z',
            commitment: 'finalized',
            finalized: true,
          },
          actors: {
            signer: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
            owner: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
          },
          handle: {
            name: 'alice',
            account: 'AmeJ81dVYxEjFPkhJ82y4Dv4N1PcJjM5qM9nS34LguNH',
          },
          type: 'handle.registered',
          change: {
            handleType: 0,
            owner: {
              before: null,
              after: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
            },
          },
        },
        {
          schema: 'sigil.identity-events/v1',
          id: 'iev_M79iXprFjAa1kiFviytwv1',
          sequence: 5,
          notice: 'Notification only: the chain is the source of truth.',
          chain: {
            signature: '63AQbem176SxDW1Zggr1xDZW9nkVTsSsnyUWR3of4JVbyZFmSHeLkdSHSoHFpVe7FDmvXDCHXicWohyGwYvz5pFn',
            ixIndex: 0,
            innerIndex: -1,
            slot: 9,
            blockTime: '2026-11-24T04:00:59Z',
            commitment: 'finalized',
            finalized: true,
          },
          actors: {
            signer: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
            wallet: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
          },
          handle: {
            name: 'alice',
            account: 'AmeJ81dVYxEjFPkhJ82y4Dv4N1PcJjM5qM9nS34LguNH',
          },
          type: 'primary.set',
          change: {
            wallet: 'FRCvqR5iuZVuTanj4ErnwiWRLuXP2WZQeTVKYWVhWM6T',
            primary: {
              before: null,
              after: 'alice',
            },
          },
        },
      ],
      next_after: 5,
      has_more: true,
      oldest_sequence: 1,
      latest_sequence: 42,
    },
  },
  // The real document's head: its `$ref`/`$defs` are left out because OpenAPI tools (Redocly, Swagger UI) resolve
  // any `$ref`, even inside an example, against the OpenAPI document instead of the schema.
  'GET /v1/gate/policy.schema.json': { response: withoutRefs(policyJsonSchema()) },
  // One day of UTC-hour buckets, zero-filled as the service answers them (docs/usage-history.md).
  'GET /v1/usage/history': {
    parameters: { range: '24h', key_id: 'key_1ChLzwWxnxSmGPTygaf1vn' },
    response: usageHistoryExample(),
  },
  'GET /v1/usage/history/key': {
    parameters: { range: '24h' },
    response: usageHistoryExample(),
  },
  // A page of the 4xx answers of one key, newest first; older ones follow.
  'GET /v1/usage/requests': {
    parameters: { key_id: 'key_1ChLzwWxnxSmGPTygaf1vn', status: '4xx' },
    response: {
      requests: [
        {
          at: 1795492812345,
          method: 'GET',
          route: '/v1/resolve/{name}',
          status: 404,
          latency_ms: 1.84,
          request_id: 'req_7Rk2hVbqGZ1sQx4mT9cN3w',
          key_id: 'key_1ChLzwWxnxSmGPTygaf1vn',
          kind: 'keyed',
        },
        {
          at: 1795492810021,
          method: 'POST',
          route: '/v1/auth/verify',
          status: 400,
          latency_ms: 0.97,
          request_id: 'req_4hQ8pWm1sKz6TbV2xNc9Lr',
          key_id: 'key_1ChLzwWxnxSmGPTygaf1vn',
          kind: 'keyed',
        },
      ],
      next_before: '1795492810021:req_4hQ8pWm1sKz6TbV2xNc9Lr',
    },
  },
  // Webhooks managed with the portal session (one key of the signed-in owner; docs/webhooks.md).
  'GET /v1/keys/{id}/webhooks/{stream}': {
    parameters: { id: OWNER_KEY, stream: 'pay' },
    response: { webhooks: [OWNER_WEBHOOK] },
  },
  'GET /v1/keys/{id}/webhooks/{stream}/{webhookId}': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id },
    response: OWNER_WEBHOOK,
  },
  'POST /v1/keys/{id}/webhooks/pay/challenge': {
    parameters: { id: OWNER_KEY },
    request: { scope: OWNER_WALLET, url: 'https://shop.example/hooks/sigil', event_types: ['payment.*'] },
    response: {
      nonce: 'Gm4kR8vXz2Lq9TbN1cHw6YpJ3sDf7Ua5',
      message: `sigil-pay-webhook:v1\nkey: ${OWNER_KEY}\nscope: ${OWNER_WALLET}\nurl: https://shop.example/hooks/sigil\nevents: payment.received,payment.binding_verified\nnonce: Gm4kR8vXz2Lq9TbN1cHw6YpJ3sDf7Ua5\nexpires: 2026-11-28T00:10:00Z`,
      expires_at: 1795738200,
    },
  },
  'POST /v1/keys/{id}/webhooks/pay': {
    parameters: { id: OWNER_KEY },
    request: {
      nonce: 'Gm4kR8vXz2Lq9TbN1cHw6YpJ3sDf7Ua5',
      signature: '3Zbm1f5hKtV3GxkBWLBjydbcnUiDFLBW6JiFzEp1Ji2mWVXqHUX1fnXAwAGdQ7xeLcLYFXgqTvh5pTW3nmhRN1nT',
    },
    response: { ...PAY_WEBHOOK_OF_OWNER, secret: 'whsec_8dVb3kQ2mXr7YpJ4nT6sWc9Lh5Fz1Ga' },
  },
  'POST /v1/keys/{id}/webhooks/identity': {
    parameters: { id: OWNER_KEY },
    request: { scope: '@alice', url: 'https://shop.example/hooks/sigil-identity', event_types: ['record'] },
    response: {
      id: 'whsub_1ChLztXb5eP8rR3tYc1Md6',
      scope: { type: 'name', value: '@alice' },
      url: 'https://shop.example/hooks/sigil-identity',
      event_types: ['record.*'],
      description: null,
      status: 'active',
      paused_reason: null,
      from_sequence: 1043,
      created_at: 1795488884,
      updated_at: 1795488884,
      secret: 'whsec_5Tq2Nw8Lx4Rb7Kd1Hm9Jc3Vy6Pz0Ga',
    },
  },
  'POST /v1/keys/{id}/webhooks/pay/{webhookId}/challenge': {
    parameters: { id: OWNER_KEY, webhookId: OWNER_WEBHOOK.id },
    request: { url: 'https://shop.example/hooks/sigil-v2' },
    response: {
      nonce: 'Hq5mS9wYa3Mr1UcP2dJx7ZqK4tEg8Vb6',
      message: `sigil-pay-webhook:v1\nkey: ${OWNER_KEY}\nscope: ${OWNER_WALLET}\nurl: https://shop.example/hooks/sigil-v2\nevents: payment.received,invoice.paid\nnonce: Hq5mS9wYa3Mr1UcP2dJx7ZqK4tEg8Vb6\nexpires: 2026-11-28T00:10:00Z`,
      expires_at: 1795738200,
    },
  },
  'PATCH /v1/keys/{id}/webhooks/{stream}/{webhookId}': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id },
    request: {
      url: 'https://shop.example/hooks/sigil-v2',
      nonce: 'Hq5mS9wYa3Mr1UcP2dJx7ZqK4tEg8Vb6',
      signature: '4Kcn2g6iLuW4HylCXMCkzecdoVjEGMCX7KjGaFq2Kj3nXWYrIVY2goYBxBHeR8yfMdMZGYhrUwi6qUX4omiSO2oU',
      event_types: ['payment.received', 'invoice.paid'],
    },
    response: { ...OWNER_WEBHOOK, url: 'https://shop.example/hooks/sigil-v2' },
  },
  'DELETE /v1/keys/{id}/webhooks/{stream}/{webhookId}': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id },
  },
  'POST /v1/keys/{id}/webhooks/{stream}/{webhookId}/disable': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id },
    response: { ...OWNER_WEBHOOK, status: 'paused', paused_reason: 'disabled: by the owner', state: 'disabled' },
  },
  'POST /v1/keys/{id}/webhooks/{stream}/{webhookId}/enable': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id },
    response: OWNER_WEBHOOK,
  },
  'POST /v1/keys/{id}/webhooks/{stream}/{webhookId}/resume': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id },
    response: OWNER_WEBHOOK,
  },
  'POST /v1/keys/{id}/webhooks/{stream}/{webhookId}/rotate-secret': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id },
    response: { id: OWNER_WEBHOOK.id, secret: 'whsec_3Nq7Lk2Wd9Xc5Rv8Tb4Hm6Jy1Pz0Fa' },
  },
  'POST /v1/keys/{id}/webhooks/{stream}/{webhookId}/test': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id },
    request: { type: 'invoice.paid' },
    response: {
      ...OWNER_DELIVERY,
      event_type: 'invoice.paid',
      status: 'pending',
      attempts: 0,
      last_status: null,
      response_ms: null,
      next_attempt_at: 1795488884,
      delivered_at: null,
      test: true,
    },
  },
  'POST /v1/keys/{id}/webhooks/{stream}/{webhookId}/recover': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id },
    request: { since: '2026-11-27T00:00:00Z' },
    response: { requeued: 3, pending: 3 },
  },
  'GET /v1/keys/{id}/webhooks/{stream}/{webhookId}/deliveries': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id, status: 'delivered', limit: '1' },
    response: { deliveries: [OWNER_DELIVERY], next_cursor: `1795488884000.${OWNER_DELIVERY.id}` },
  },
  'GET /v1/keys/{id}/webhooks/{stream}/{webhookId}/deliveries/{deliveryId}': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id, deliveryId: OWNER_DELIVERY.id },
    response: { delivery: OWNER_DELIVERY, body: JSON.stringify(OWNER_EVENT), headers: OWNER_ATTEMPT.headers },
  },
  'GET /v1/keys/{id}/webhooks/{stream}/{webhookId}/deliveries/{deliveryId}/attempts': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id, deliveryId: OWNER_DELIVERY.id },
    response: {
      attempts: [
        OWNER_ATTEMPT,
        {
          ...OWNER_ATTEMPT,
          attempt: 1,
          attempted_at: 1795488884012,
          status: 500,
          error: 'http_status',
          duration_ms: 212,
          headers: { ...OWNER_ATTEMPT.headers, 'Sigil-Signature': `t=1795488884,v1=${'5f'.repeat(32)}` },
        },
      ],
      next_cursor: null,
    },
  },
  'POST /v1/keys/{id}/webhooks/{stream}/{webhookId}/deliveries/{deliveryId}/redeliver': {
    parameters: { id: OWNER_KEY, stream: 'pay', webhookId: OWNER_WEBHOOK.id, deliveryId: OWNER_DELIVERY.id },
    response: {
      ...OWNER_DELIVERY,
      status: 'pending',
      attempts: 0,
      last_status: null,
      response_ms: null,
      next_attempt_at: 1795489000,
      delivered_at: null,
    },
  },
  'GET /v1/webhooks/event-types': {
    response: {
      event_types: eventCatalog().filter((e) => e.type === 'payment.received' || e.type === 'handle.registered'),
    },
  },
};

/** 24 hour buckets of one key, oldest first, every bucket present (zero-filled), a little traffic in the last three. */
function usageHistoryExample() {
  const hour = 3_600_000;
  const first = 1795410000000;
  const traffic: Record<number, [served: number, clientError: number]> = { 21: [412, 3], 22: [958, 11], 23: [130, 0] };
  return {
    range: '24h',
    key_id: 'key_1ChLzwWxnxSmGPTygaf1vn',
    bucket_ms: hour,
    limits: { minute: 300, day: 15000 },
    buckets: Array.from({ length: 24 }, (_, i) => ({
      start: first + i * hour,
      served: traffic[i]?.[0] ?? 0,
      client_error: traffic[i]?.[1] ?? 0,
      rate_limited: 0,
      server_error: 0,
      paid: 0,
    })),
  };
}

function withoutRefs({ $ref: _ref, $defs: _defs, ...head }: Record<string, unknown>): Record<string, unknown> {
  return head;
}
