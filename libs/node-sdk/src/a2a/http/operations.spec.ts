import { METHODS, OPERATIONS, REST_ROUTES, REST_V03_ROUTES, V03_JSONRPC, V03_METHODS } from './operations';

/** The A2A 1.0 operations (A2A 1.0 §9): every one is served on every binding. */
const A2A_10 = [
  'SendMessage',
  'SendStreamingMessage',
  'GetTask',
  'ListTasks',
  'CancelTask',
  'SubscribeToTask',
  'CreateTaskPushNotificationConfig',
  'GetTaskPushNotificationConfig',
  'ListTaskPushNotificationConfigs',
  'DeleteTaskPushNotificationConfig',
  'GetExtendedAgentCard',
];

const routeKey = (r: { route: { verb: string; path: string } }) => `${r.route.verb} ${r.route.path}`;

describe('the operation table drives every binding (ADR 0219)', () => {
  it('names each 1.0 operation once, and the JSON-RPC method list is exactly the table', () => {
    expect(OPERATIONS.map((op) => op.method).sort()).toEqual([...A2A_10].sort());
    expect([...METHODS.keys()].sort()).toEqual([...A2A_10].sort());
    for (const op of OPERATIONS) expect(METHODS.get(op.method)).toBe(op);
  });

  it('gives every operation at least one HTTP+JSON route, and no two operations the same verb and path', () => {
    for (const op of OPERATIONS) expect(REST_ROUTES.filter((r) => r.op === op).length).toBeGreaterThan(0);
    const keys = REST_ROUTES.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toEqual(
      expect.arrayContaining(['POST /message:send', 'GET /tasks/{id}', 'POST /tasks/{id}:cancel', 'GET /extendedAgentCard']),
    );
  });

  it('maps every operation into 0.3 on both bindings, or says explicitly that it is not in 0.3', () => {
    for (const op of OPERATIONS) {
      const jsonRpc = [...V03_JSONRPC.values()].filter((m) => m.op === op);
      const rest = REST_V03_ROUTES.filter((r) => r.op === op);
      if (op.v03 === 'not in 0.3') {
        expect({ method: op.method, jsonRpc: jsonRpc.length, rest: rest.length }).toEqual({ method: op.method, jsonRpc: 0, rest: 0 });
      } else {
        expect({ method: op.method, jsonRpc: jsonRpc.length }).toEqual({ method: op.method, jsonRpc: 1 });
        expect(rest.length).toBeGreaterThan(0);
        for (const r of rest) expect(typeof r.answer).toBe('function');
      }
    }
    // 0.3 has no task listing: the one operation outside it, stated in the table.
    expect(OPERATIONS.filter((op) => op.v03 === 'not in 0.3').map((op) => op.method)).toEqual(['ListTasks']);
    const keys = REST_V03_ROUTES.map(routeKey);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('derives the exported 0.3 method list from the table, one 0.3 name per operation', () => {
    expect(Object.fromEntries(Object.entries(V03_METHODS).map(([name, m]) => [name, m.v1]))).toEqual(
      Object.fromEntries(OPERATIONS.flatMap((op) => (op.v03 === 'not in 0.3' ? [] : [[op.v03.jsonrpc.method, op.method]]))),
    );
    expect(new Set(Object.values(V03_METHODS).map((m) => m.v1)).size).toBe(Object.keys(V03_METHODS).length);
  });

  it('asks for a token only for the extended card, and negotiates extensions everywhere else', () => {
    expect(OPERATIONS.filter((op) => op.auth === 'required').map((op) => op.method)).toEqual(['GetExtendedAgentCard']);
    expect(OPERATIONS.filter((op) => !op.negotiate).map((op) => op.method)).toEqual(['GetExtendedAgentCard']);
  });

  it('runs a streaming notification as a unary operation of the table, or skips it', () => {
    for (const op of OPERATIONS) {
      if (op.kind !== 'stream' || op.notification === 'skip') continue;
      expect(METHODS.get(op.notification.runAs)?.kind).toBe('unary');
    }
    expect(OPERATIONS.filter((op) => op.kind === 'stream').map((op) => op.method)).toEqual(['SendStreamingMessage', 'SubscribeToTask']);
  });

  it('never routes two templated paths of one verb to a path both match (segments hold no "/" or ":")', () => {
    const compile = (path: string) => new RegExp(`^${path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '([^/:]+)')}$`);
    const sample = (path: string) => path.replace(/\{[^}]+\}/g, 'x1');
    for (const routes of [REST_ROUTES, REST_V03_ROUTES]) {
      for (const a of routes) {
        const matching = routes.filter((b) => b.route.verb === a.route.verb && compile(b.route.path).test(sample(a.route.path)));
        expect(matching.map(routeKey)).toEqual([routeKey(a)]);
      }
    }
  });
});
