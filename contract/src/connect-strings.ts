// Connect: the exact strings a wallet signs (docs/connect.md, spec "Connect"). Every one is `v2` and audience-bound:
// the audience is the presenting API key's id (the portal's own key uses the portal domain). Pure: no I/O and no
// schemas, so that code which only builds or checks these strings (the SDK's browser and edge entries) stays light.

/** `/verify`, address control: `sigil-connect:v2:wallet-control:<audience>:<address>:<nonce>`. */
export function walletControlString(audience: string, address: string, nonce: string): string {
  return `sigil-connect:v2:wallet-control:${audience}:${address}:${nonce}`;
}

/** The registry's own handle-control statement, which the v2 string wraps: `sigil-handles:ctl:v1:<handle>:<epoch>:<nonce>`. */
export function handleControlStatement(handle: string, epoch: bigint | number, nonce: string): string {
  return `sigil-handles:ctl:v1:${handle}:${BigInt(epoch).toString()}:${nonce}`;
}

/**
 * `/verify`, handle control: `sigil-connect:v2:handle-control:<audience>:` + `sigil-handles:ctl:v1:<handle>:<epoch>:<nonce>`.
 * `epoch` is the handle's current registration epoch (docs/registry-program.md), so a signature made for a
 * previous registration of the same name never verifies.
 */
export function handleControlString(audience: string, handle: string, epoch: bigint | number, nonce: string): string {
  return `sigil-connect:v2:handle-control:${audience}:${handleControlStatement(handle, epoch, nonce)}`;
}

/** `/verify-tx`: the memo data, `sigil-verify:<audience>:<nonce>`. */
export function memoString(audience: string, nonce: string): string {
  return `sigil-verify:${audience}:${nonce}`;
}
