import { NODE_ID_PATTERN } from '@cp/node-protocol';
import { NodeSync, type NodeSyncOptions } from './node-sync';

const options = (nodeId: string): NodeSyncOptions => ({
  controlPlaneUrl: 'http://127.0.0.1:1',
  nodeToken: 'unused',
  agentId: 'finance-agent',
  nodeId,
  cacheDir: '/nonexistent',
});

describe('NodeSync takes the node-id rule of @cp/node-protocol', () => {
  it.each(['host-1:3002', 'a', 'x'.repeat(128), 'node.a_b:c-d'])('accepts %s', (nodeId) => {
    expect(NODE_ID_PATTERN.test(nodeId)).toBe(true);
    expect(() => new NodeSync(options(nodeId))).not.toThrow();
  });

  it.each(['', 'x'.repeat(129), 'bad id', 'node/1', 'n\r\nX-Injected: 1', 'nöde'])(
    'refuses %j at construction, naming the rule',
    (nodeId) => {
      expect(() => new NodeSync(options(nodeId))).toThrow(/nodeId ".*" must be 1-128 characters/s);
    },
  );
});
