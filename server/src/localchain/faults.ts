// Fault injection for tests: make the RPC unreachable, slow, failing, or serve malformed account data.
// Set in-process (`chain.faults.set(...)`) or over loopback (`POST /_control/faults`, same JSON).
import { z } from 'zod';

export const faultConfigSchema = z
  .object({
    /** Destroy every RPC connection without a response (the client sees a reset / "fetch failed"). */
    unreachable: z.boolean().optional(),
    /** Delay every RPC response by this many milliseconds. */
    delayMs: z.number().int().min(0).max(120_000).optional(),
    /** Answer every RPC call with this JSON-RPC error object. */
    rpcError: z.object({ code: z.number().int(), message: z.string() }).nullable().optional(),
    /** Answer every RPC request with this HTTP status (e.g. 500) and a plain-text body. */
    httpStatus: z.number().int().min(400).max(599).nullable().optional(),
    /** Serve these accounts with garbage data (same length, bytes 0xff; empty accounts get 7 bytes). */
    malformedAccounts: z.array(z.string()).optional(),
    /** Report every slot without a transaction as skipped (absent from getBlocks, getBlock answers -32007). */
    skipEmptySlots: z.boolean().optional(),
    /** Limit delay / rpcError / httpStatus to these methods (default: all). */
    methods: z.array(z.string()).optional(),
  })
  .strict();

export type FaultConfig = z.infer<typeof faultConfigSchema>;

export class Faults {
  private config: FaultConfig = {};

  /** Merges into the current faults (pass `{}` to keep them; use clear() to remove all). */
  set(update: FaultConfig): FaultConfig {
    this.config = { ...this.config, ...faultConfigSchema.parse(update) };
    return this.get();
  }

  /** Replaces the faults wholesale. */
  replace(config: FaultConfig): FaultConfig {
    this.config = faultConfigSchema.parse(config);
    return this.get();
  }

  clear(): void {
    this.config = {};
  }

  get(): FaultConfig {
    return structuredClone(this.config);
  }

  get unreachable(): boolean {
    return this.config.unreachable === true;
  }

  private applies(method: string | null): boolean {
    const { methods } = this.config;
    return !methods || (method !== null && methods.includes(method));
  }

  /** Delay for a request carrying these methods (batch: any method matching). */
  delayFor(methods: (string | null)[]): number {
    return this.config.delayMs && methods.some((m) => this.applies(m)) ? this.config.delayMs : 0;
  }

  httpStatusFor(methods: (string | null)[]): number | null {
    return this.config.httpStatus && methods.some((m) => this.applies(m)) ? this.config.httpStatus : null;
  }

  rpcErrorFor(method: string | null): { code: number; message: string } | null {
    return this.config.rpcError && this.applies(method) ? this.config.rpcError : null;
  }

  get skipEmptySlots(): boolean {
    return this.config.skipEmptySlots === true;
  }

  isMalformed(address: string): boolean {
    return this.config.malformedAccounts?.includes(address) ?? false;
  }

  /** Garbage that no layout decodes: wrong discriminator, 0xff bool bytes, absurd string lengths. */
  static garbage(length: number): Uint8Array {
    return new Uint8Array(length === 0 ? 7 : length).fill(0xff);
  }
}
