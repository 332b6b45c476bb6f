// The registry program's layouts, in one module (docs/registry-program.md). Everything on-chain goes through here.
export * from './primitives';
export * from './accounts';
export * from './pdas';
export * from './instructions';
export * from './market';
