// POST /privy/wallet (docs/privy.md): a Privy identity token in, the Solana wallets Privy says the user linked out,
// each with its trusted primary handle and the handle's live attestations, read from the chain.
import { z } from 'zod';

/** Longest identity token accepted: Privy's carry every linked account, a few KiB; anything longer is refused. */
export const MAX_PRIVY_TOKEN_CHARS = 16_384;
/** The most Solana wallets read per call: the work of one call stays bounded whatever the token lists. */
export const MAX_PRIVY_WALLETS = 10;

export const PrivyWalletInputSchema = z.strictObject({
  identityToken: z.string().min(1).max(MAX_PRIVY_TOKEN_CHARS).meta({
    description: "The user's Privy identity token (an ES256 JWT issued by privy.io for this deployment's Privy app).",
  }),
});

export const PrivyWalletSchema = z
  .strictObject({
    address: z.string().meta({ description: 'The Solana wallet, base58, as Privy lists it.' }),
    embedded: z.boolean().meta({
      description:
        "A Privy embedded wallet (`wallet_client_type: 'privy'`); false for an external wallet the user linked.",
    }),
    handle: z.string().nullable().meta({
      description:
        "The wallet's trusted primary handle (normalized, no `@`), or null when it has none (docs/reverse.md).",
    }),
    attestations: z.array(z.string()).meta({
      description:
        'Platform slugs of the live attestations of that handle, issued under its current registration, sorted; [] without a handle.',
    }),
  })
  .meta({ id: 'PrivyWallet' });

export const PrivyWalletResultSchema = z
  .strictObject({
    user: z.string().meta({ description: "The Privy user id (the token's `sub`, a `did:privy:` DID)." }),
    wallets: z.array(PrivyWalletSchema).meta({
      description: `The Solana wallets the token lists, in its order (at most ${MAX_PRIVY_WALLETS}).`,
    }),
    slot: z.number().int().meta({ description: 'The slot the primary handles were proven at or after.' }),
  })
  .meta({
    id: 'PrivyWalletResult',
    description:
      'What Privy asserts (this user linked these wallets) joined with what the chain says of them. Not a wallet signature: it grants nothing a signature would (docs/privy.md).',
  });

export type PrivyWalletResult = z.infer<typeof PrivyWalletResultSchema>;
