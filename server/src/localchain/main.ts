// Standalone local chain: `node --import tsx server/src/localchain/main.ts [--port 8899] [--lag 4] [--slot-ms 400]
// [--agent-host-port 8697] [--geyser-port 10000] [--geyser-token <x-token>] [--no-scenario] [--manual]
// [--genesis devnet|<base58 hash>]`. Listens on 127.0.0.1 only; Ctrl-C / SIGTERM closes it.
import { parseArgs } from 'node:util';
import {
  DEFAULT_AGENT_HOST_PORT,
  DEFAULT_GEYSER_PORT,
  DEFAULT_LOCAL_CHAIN_PORT,
  SOLANA_DEVNET_GENESIS_HASH,
  startLocalChain,
} from './index';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: String(DEFAULT_LOCAL_CHAIN_PORT) },
    'agent-host-port': { type: 'string', default: String(DEFAULT_AGENT_HOST_PORT) },
    'geyser-port': { type: 'string', default: String(DEFAULT_GEYSER_PORT) },
    'geyser-token': { type: 'string' },
    lag: { type: 'string', default: '4' },
    'slot-ms': { type: 'string', default: '400' },
    'no-scenario': { type: 'boolean', default: false },
    manual: { type: 'boolean', default: false },
    genesis: { type: 'string' },
  },
});

function int(name: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) {
    console.error(`--${name} must be an integer >= ${min}, got "${raw}"`);
    process.exit(2);
  }
  return n;
}

const chain = await startLocalChain({
  port: int('port', values.port, 0),
  agentHostPort: int('agent-host-port', values['agent-host-port'], 0),
  geyserPort: int('geyser-port', values['geyser-port'], 0),
  geyserToken: values['geyser-token'],
  finalityLagSlots: int('lag', values.lag, 1),
  slotMs: int('slot-ms', values['slot-ms'], 1),
  scenario: !values['no-scenario'],
  autoAdvance: !values.manual,
  // `devnet`: present Solana devnet's genesis hash, so that stock x402 clients accept the network id.
  genesisHash: values.genesis === 'devnet' ? SOLANA_DEVNET_GENESIS_HASH : values.genesis,
}).catch((err: Error) => {
  console.error(err.message);
  process.exit(2);
});

console.log(`local chain RPC   ${chain.url}`);
console.log(`Geyser (gRPC)     ${chain.geyserUrl}${values['geyser-token'] ? '   (x-token required)' : ''}`);
console.log(`program id        ${chain.programId}`);
console.log(`genesis hash      ${chain.genesisHash}`);
if (chain.scenario) console.log(`demo scenario     ${chain.url}/scenario`);
if (chain.agentHost) console.log(`demo agent host   ${chain.agentHost.origin}   (CA: ${chain.agentHost.caFile})`);
console.log(`faults (tests)    POST ${chain.url}/_control/faults`);

const stop = async () => {
  await chain.close();
  process.exit(0);
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
