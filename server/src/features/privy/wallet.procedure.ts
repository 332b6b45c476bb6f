import { PrivyWalletInputSchema, PrivyWalletResultSchema } from '@sigil/contract/privy';
import { rest } from '../../trpc/meta';
import { publicProcedure } from '../../trpc/procedures';

/** POST /privy/wallet: a Privy identity token → its Solana wallets, each with its primary handle and attestations. */
export const privyWallet = publicProcedure
  .meta(
    rest('POST', '/privy/wallet', {
      summary: 'Handles and attestations of the Solana wallets in a Privy identity token',
      description:
        'Verifies a Privy identity token offline (ES256, the configured Privy app, issuer privy.io, unexpired) and ' +
        'answers, for each Solana wallet it lists (at most 10), the trusted primary handle and the live attestations ' +
        "of that handle. Privy's word that the user linked the wallet, not a wallet signature: it opens no session " +
        '(docs/privy.md). Keyless, like the other public reads.',
      tags: ['public'],
      errors: {
        BAD_REQUEST: 'no identityToken, or over 16384 characters',
        PRIVY_TOKEN_INVALID: 'not a JWT, not ES256, or not signed by the configured key',
        PRIVY_TOKEN_EXPIRED: '',
        PRIVY_WRONG_AUDIENCE: 'issued for another Privy app',
        PRIVY_WRONG_ISSUER: 'not issued by privy.io',
        PRIVY_NO_SOLANA_WALLET: 'the token lists no Solana wallet',
        NOT_CONFIGURED: 'SIGIL_PRIVY_APP_ID and SIGIL_PRIVY_VERIFICATION_KEY unset',
        RPC_UNREACHABLE: '',
      },
    }),
  )
  .input(PrivyWalletInputSchema)
  .output(PrivyWalletResultSchema)
  .mutation(({ ctx, input }) => ctx.services.privy.wallet(input.identityToken));
