// A JSON-RPC error answer of the local chain (code, message, optional data), and the shape of one method's handler.
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export type MethodHandler = (params: unknown) => unknown | Promise<unknown>;
