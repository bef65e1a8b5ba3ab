/**
 * The routes answered on arrival (ADR 0185), apart from the Nest adapter that answers them
 * (fastify-adapter.ts): registering one needs no Nest, so the node SDK's A2A server (an
 * installable package, ADR 0224) registers its card route through here without loading Nest.
 */
import type { Server } from 'node:http';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

/**
 * A GET handler that sends its answer itself: before it returns, or (the node bundle: a token check
 * and a Redis read) before the promise it returns settles. It must answer every outcome, errors
 * included; a rejection it lets through is handed to Fastify's error handler.
 */
export type ArrivalHandler = (request: FastifyRequest, reply: FastifyReply) => unknown;

/** The GET routes answered on arrival, by the http server of the app (shared by its contexts). */
export const ARRIVAL_ROUTES = new WeakMap<Server, Map<string, ArrivalHandler>>();

/**
 * Registers a public GET route that apps built with createFastifyAdapter answer from their first
 * `onRequest` hook, after the security headers and the request id are set: Nest's own request
 * hooks and its middleware engine (@fastify/middie) do not run for it (ADR 0185). Only for
 * answers that need neither Nest middleware nor a guard (the public card; the node bundle, whose
 * handler is asynchronous, ADR 0193). A URL with a query string, a HEAD, or an app on another
 * adapter reaches the same handler through the ordinary route registered here.
 */
export function answerOnArrival(app: FastifyInstance, path: string, handler: ArrivalHandler): void {
  app.get(path, handler as never);
  ARRIVAL_ROUTES.get(app.server)?.set(path, handler);
}
