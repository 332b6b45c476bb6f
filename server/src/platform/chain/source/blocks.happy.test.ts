// The block-polling source passes the shared ingestion suite on the local chain.
import { describeIngestionSuite } from '@sigil/test/support/ingestion-suite';
import { createChainReader } from '../reader';
import { createBlockSource } from './blocks';

describeIngestionSuite('blocks', async (chain) => {
  const reader = createChainReader({ rpcUrl: chain.url, programId: chain.programId, timeoutMs: 5000 });
  return { source: createBlockSource(reader, { pollMs: 20, backoffMinMs: 20, backoffMaxMs: 100 }) };
});
