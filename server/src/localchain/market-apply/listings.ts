// Listings of a tokenized handle: the NFT is frozen while listed, and a sale moves it and the price at once.
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { encodeHandle, encodeMarketAccount, MARKET_PDAS } from '../../platform/chain/registry';
import { expectPda, fail, signerStub } from '../emulator-run';
import { closeAccount, expectAta, requireMarket, tokenProgramOf, write, type MarketRows } from './accounts';

export const listingRows = {
  list_handle: async (emu, run, ix) => {
    const { programId } = emu;
    const { seller, handle, listing, sellerTokenAccount } = ix.accounts;
    const h = run.loadHandle(handle);
    if (!h.tokenized || !h.mint) throw fail('NotTokenized', `@${h.name} is not tokenized: take offers or auction it`);
    await run.requireAuthority(h, seller);
    await expectAta(seller, h.mint, tokenProgramOf(run, h.mint), sellerTokenAccount, 'seller token account');
    if (ix.args.price <= 0n) throw fail('InvalidAmount', 'a listing price is positive');
    const bump = await expectPda(listing, MARKET_PDAS.listing(programId, handle), 'listing');
    write(
      run,
      listing,
      encodeMarketAccount('Listing', {
        handle,
        seller,
        mint: h.mint,
        price: ix.args.price,
        createdAt: run.now,
        bump,
      }),
    );
  },
  delist_handle: async (emu, run, ix) => {
    const { seller, listing } = ix.accounts;
    run.requireSigner(seller, 'seller');
    const l = requireMarket(run, emu, 'Listing', listing);
    if (l.seller !== seller) throw fail('NotAuthority', 'only the seller delists');
    closeAccount(run, listing, seller);
  },
  buy_listing: async (emu, run, ix) => {
    const { buyer, handle, listing, seller, sellerTokenAccount, buyerTokenAccount, mint, tokenProgram } = ix.accounts;
    run.requireSigner(buyer, 'buyer');
    const l = requireMarket(run, emu, 'Listing', listing);
    if (l.handle !== handle || l.seller !== seller || l.mint !== mint) throw fail('NotListed', 'listing mismatch');
    if (l.price !== ix.args.expectedPrice)
      throw fail('PriceChanged', `the listing is ${l.price}, not ${ix.args.expectedPrice}`);
    const h = run.loadHandle(handle);
    if ((await run.authorityOf(h)) !== seller) throw fail('NotListed', 'the seller no longer holds the NFT');
    if (tokenProgram !== tokenProgramOf(run, mint)) throw fail('InvalidTokenAccount', 'not the mint token program');
    await expectAta(seller, mint, tokenProgram, sellerTokenAccount, 'seller token account');
    await expectAta(buyer, mint, tokenProgram, buyerTokenAccount, 'buyer token account');
    run.moveLamports(buyer, seller, l.price);
    run.cpi([
      getCreateAssociatedTokenIdempotentInstruction({
        payer: signerStub(buyer),
        ata: buyerTokenAccount,
        owner: buyer,
        mint,
        tokenProgram,
      }),
      // The program moves the NFT under the authority the listing holds (the emulator acts for the seller).
      getTransferCheckedInstruction(
        {
          source: sellerTokenAccount,
          mint,
          destination: buyerTokenAccount,
          authority: signerStub(seller),
          amount: 1n,
          decimals: 0,
        },
        { programAddress: tokenProgram },
      ),
    ]);
    write(run, handle, encodeHandle({ ...h, owner: buyer }));
    closeAccount(run, listing, seller);
  },
} satisfies MarketRows;
