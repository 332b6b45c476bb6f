// The root type check (tsconfig.json at the repo root) maps `next` here. trpc-to-openapi's type declarations import
// `next` for an adapter the server never uses; without this, the server's program would load Next's global types,
// which make `NODE_ENV` a required, read-only key of every `process.env`-typed object in server and test code.
// The portal's own tsconfig (web-portal/tsconfig.json) resolves the real `next`.
export {};
