/**
 * The JSON-RPC binding, 1.0 and 0.3 (ADR 0160) on one path: the envelope, the version (a missing
 * A2A-Version is 0.3) and then the method in that version's names, both looked up in the operation
 * table; notifications run but are never answered. Streams wrap each event in a response envelope.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { A2AError, A2AErrorName } from '../a2a-errors';
import { declaredBy } from '../served-bundle';
import { checkDepth } from '../validate-params';
import { eventToV03 } from '../v03/shapes';
import { negotiateVersion } from '../version';
import { encode, METHODS, V03_JSONRPC, type Answer } from './operations';
import {
  authenticateHeader,
  operationDeps,
  refuse,
  requestContext,
  runOperation,
  traced,
  type A2ARoutesOptions,
  type Resolved,
  type Wire,
} from './pipeline';

const JSON_TYPE = 'application/json';

export type JsonRpcId = string | number | null;

interface Envelope {
  id: JsonRpcId;
  method: string;
  params: unknown;
  /** No `id` member: JSON-RPC 2.0 §4.1, the server must not reply. */
  notification: boolean;
}

/** The JSON-RPC route (one SERVER span per request; the method is named once it is known). */
export function jsonRpcRoute(options: A2ARoutesOptions) {
  return traced('jsonrpc', undefined, async (request: FastifyRequest, reply: FastifyReply) => {
    let env: Envelope;
    try {
      env = parseEnvelope(request.body, options.maxJsonDepth);
    } catch (error) {
      return refuse(reply, options, jsonRpcWire((error as { rpcId?: JsonRpcId }).rpcId ?? null, false), error);
    }
    if (env.notification) {
      // JSON-RPC 2.0: a notification is processed but never answered, not even with an error.
      void runNotification(request, env, options);
      return reply.code(204).send();
    }
    let v03 = false;
    const wire = jsonRpcWire(env.id, () => v03);
    return runOperation(request, reply, options, wire, () => {
      const call = resolveCall(request, env, options);
      v03 = call.version === '0.3';
      return call;
    });
  });
}

/** JSON-RPC errors answer HTTP 200 (as a2a-js does), except transport-level ones and server faults. */
function jsonRpcHttpStatus(error: A2AError): number {
  const s = error.mapping.http;
  return s === 401 || s === 413 || s === 429 || s === 503 || s >= 500 ? s : 200;
}

export function sendJsonRpcError(reply: FastifyReply, id: JsonRpcId, error: A2AError): FastifyReply {
  authenticateHeader(reply, error);
  return reply
    .code(jsonRpcHttpStatus(error))
    .header('content-type', JSON_TYPE)
    .send(JSON.stringify({ jsonrpc: '2.0', id, error: error.toJsonRpc() }));
}

function jsonRpcWire(id: JsonRpcId, v03: boolean | (() => boolean)): Wire {
  const prefix = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  const isV03 = typeof v03 === 'function' ? v03 : () => v03;
  return {
    binding: 'jsonrpc',
    error: (reply, error) => sendJsonRpcError(reply, id, error),
    // The answer's JSON goes into the envelope as it is (the card: its stored bytes).
    answer: async (reply, answer) => {
      await reply.code(200).header('content-type', JSON_TYPE).send(`${prefix}${answer.json}}`);
      return 200;
    },
    frames: {
      event: (event) => `data: ${prefix}${JSON.stringify(isV03() ? eventToV03(event) : event)}}\n\n`,
      error: (e) => ({ jsonrpc: '2.0', id, error: e.toJsonRpc() }),
    },
  };
}

function parseEnvelope(body: unknown, maxJsonDepth: number): Envelope {
  const raw = Buffer.isBuffer(body) ? body.toString('utf8') : '';
  let envelope: unknown;
  try {
    envelope = JSON.parse(raw);
  } catch {
    throw new A2AError(A2AErrorName.ParseError, 'the request body is not valid JSON');
  }
  if (Array.isArray(envelope)) throw new A2AError(A2AErrorName.InvalidRequest, 'batch requests are not supported');
  if (typeof envelope !== 'object' || envelope === null)
    throw new A2AError(A2AErrorName.InvalidRequest, 'the request must be a JSON-RPC 2.0 object');
  const e = envelope as Record<string, unknown>;
  const id: JsonRpcId = typeof e.id === 'string' || typeof e.id === 'number' ? e.id : null;
  const fail = (error: A2AError) => Object.assign(error, { rpcId: id });
  if (e.jsonrpc !== '2.0') throw fail(new A2AError(A2AErrorName.InvalidRequest, 'jsonrpc must be "2.0"'));
  if (typeof e.method !== 'string') throw fail(new A2AError(A2AErrorName.InvalidRequest, 'method must be a string'));
  const notification = !('id' in e);
  if (!notification && !(typeof e.id === 'string' || (typeof e.id === 'number' && Number.isInteger(e.id)))) {
    throw fail(new A2AError(A2AErrorName.InvalidRequest, 'id must be a string or an integer'));
  }
  if (e.params !== undefined && (typeof e.params !== 'object' || e.params === null || Array.isArray(e.params))) {
    throw fail(new A2AError(A2AErrorName.InvalidParams, 'params must be an object', { field: 'params' }));
  }
  if (e.params !== undefined) {
    try {
      checkDepth(e.params, maxJsonDepth);
    } catch (error) {
      throw fail(error as A2AError);
    }
  }
  return { id, method: e.method, params: e.params, notification };
}

/**
 * The version first (a missing A2A-Version is 0.3), then the method in that version's names: a
 * 0.3 call to a node that serves no 0.3 is VersionNotSupportedError, never method-not-found. The
 * 0.3 params are translated here, before authentication (as they always were).
 */
function resolveCall(request: FastifyRequest, env: Envelope, options: A2ARoutesOptions): Resolved {
  const served = declaredBy(options.service.current()).versions.jsonrpc;
  const version = negotiateVersion(request.headers['a2a-version'], (request.query as Record<string, unknown>)['A2A-Version'], served);
  if (version === '1.0') {
    const op = METHODS.get(env.method);
    if (!op) throw new A2AError(A2AErrorName.MethodNotFound, `method "${env.method}" does not exist`, { method: env.method });
    return { op, version, params: () => env.params, encode: (r) => (op.kind === 'unary' ? encode(op, r) : { json: 'null' }) };
  }
  const m = V03_JSONRPC.get(env.method);
  if (!m) {
    if (METHODS.has(env.method)) {
      throw new A2AError(
        A2AErrorName.VersionNotSupported,
        `"${env.method}" is an A2A 1.0 method; send the header A2A-Version: 1.0 (a request without it is A2A 0.3)`,
        { requested: '0.3', method: env.method },
      );
    }
    throw new A2AError(A2AErrorName.MethodNotFound, `method "${env.method}" does not exist in A2A 0.3`, { method: env.method });
  }
  const op = m.op;
  const params = m.params(env.params);
  return {
    op,
    version,
    params: () => params,
    encode: (r): Answer => ({
      json: JSON.stringify(m.result(r)),
      capabilityId: op.kind === 'unary' ? encode(op, r).capabilityId : undefined,
    }),
  };
}

/**
 * A notification runs like a call (same checks, same usage counting) and its answer is dropped;
 * a streaming method runs as its unary form, since nobody reads the stream, and reads nobody
 * hears are skipped (the operation table says which).
 */
async function runNotification(request: FastifyRequest, env: Envelope, options: A2ARoutesOptions): Promise<void> {
  try {
    const call = resolveCall(request, env, options);
    const rule = call.op.notification;
    if (rule === 'skip') return;
    const op = typeof rule === 'object' ? METHODS.get(rule.runAs) : call.op;
    if (op?.kind !== 'unary') return;
    const rc = await requestContext(request, options, { ...op, auth: 'optional' }, call.version);
    await op.call(operationDeps(options), call.params(), rc, options.service.negotiate(rc));
  } catch (error) {
    const a2a = error instanceof A2AError ? error : undefined;
    if (a2a) options.log.info({ method: env.method, reason: a2a.errorInfo().reason }, 'JSON-RPC notification refused (not answered)');
    else options.log.error({ method: env.method, err: (error as Error)?.message }, 'JSON-RPC notification failed (not answered)');
  }
}
