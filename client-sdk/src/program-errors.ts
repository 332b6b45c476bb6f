// The registry program's errors by name, for apps that send registry transactions: the catalog and the decoder
// are the contract's (docs/registry-program.md § Errors).
export {
  decodeProgramError,
  NOTHING_TO_RECLAIM_LOG,
  REGISTRY_LAYOUT_ERRORS,
  SPEC_PROGRAM_ERRORS,
  specProgramError,
  type DecodedProgramError,
  type DecodeOptions,
  type ProgramErrorEntry,
  type SpecProgramErrorName,
} from '@sigil/contract/program-errors';
