// x402: metered reads paid per call on chain (the native rail), the meter behind meteredProcedure.
export { createX402Service } from './service';
export { meteringOff } from './meter-off';
export { deleteExpiredReferences } from './store';
