// The repo's declarations of two untyped dependencies of the routing core: the type bundler
// compiles from this entry alone, not from tsconfig.json's `include`.
// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- a declaration file, not a module: nothing to import
/// <reference path="../../../libs/capabilities/src/routing/vendor-modules.d.ts" />
/**
 * `@cp-sdk/a2a-server`: the A2A server of an agent node (ADR 0224): your handlers behind A2A 1.0
 * (JSON-RPC, HTTP+JSON) and 0.3 on a Fastify instance, with the tool gateway, usage reporting and
 * the routing clients it is wired with. Bundled by tools/build-packages.cjs from libs/node-sdk's
 * sources, which stay where they are; loads no NestJS (test/unit/sync-client-nest-free.spec.ts).
 * It never imports the sync client: give `registerA2AServer` a `bundle()` that returns the served
 * bundle (NodeSync's `current()` from `@cp-sdk/node-sync`).
 */
export * from '../../../libs/node-sdk/src/a2a';
export * from '../../../libs/node-sdk/src/tools';
export * from '../../../libs/node-sdk/src/usage';
export * from '../../../libs/node-sdk/src/routing';
export type {
  A2AObserver,
  ToolObserver,
  UsageObserver,
  CardKind,
  A2ABinding,
  RoutingOutcome,
} from '../../../libs/node-sdk/src/observability/observer';
// How the server checks the a2a tokens callers present (HS256 with a shared secret, or keys from a JWKS).
export { JwtVerifier, type JwtVerifierOptions, type A2APrincipal } from '@cp/auth';
