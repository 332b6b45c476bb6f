// x402: metered reads paid per call on chain (the native rail), the meter behind meteredProcedure.
export { createX402Service } from './service';
export { meteringOff } from './meter-off';
export { deleteExpiredReferences, deleteOldSettlements } from './queries';
// The pure payment check (no db, nothing consumed): the MCP tool server's verify_x402_payment judges a payment
// against a challenge with the same rules the service redeems by.
export { checkPaymentTransaction } from './payment-tx';
