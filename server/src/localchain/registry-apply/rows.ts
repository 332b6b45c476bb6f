// The row type of the registry's own instructions (the market's are in market-apply/), and what several rows use.
import type { MarketInstruction, RegistryInstruction } from '../../platform/chain/registry';
import type { InstructionRows, InstructionTable } from '../../platform/chain/registry/instruction-table';
import type { EmulatorContext, InstructionRun } from '../emulator-run';

type OwnInstruction = Exclude<RegistryInstruction, MarketInstruction>;
export type RegistryRows = InstructionRows<OwnInstruction, [EmulatorContext, InstructionRun], Promise<void>>;
export type RegistryTable = InstructionTable<OwnInstruction, [EmulatorContext, InstructionRun], Promise<void>>;

/** UTF-8 length: the program bounds strings in bytes. */
export const byteLength = (s: string) => new TextEncoder().encode(s).length;
