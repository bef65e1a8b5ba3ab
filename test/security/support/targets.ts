/**
 * The targets the A2A conformance and security suites run against (issue 28): "in-process", the
 * security stack as it is (every capability served by a handler in the node's process), and
 * "gateway", the same stack with reconcile-invoice served by an official `@a2a-js/sdk` express
 * upstream (A2A 1.0, JSON-RPC) that the node fronts. A suite written as a factory over a
 * `Target` asserts the same protocol behaviour of both: the node must be as conformant in front
 * of an upstream as it is alone. `upstream` is set for the gateway target only, so a suite can
 * also assert what reached it.
 */
import { allowLoopbackUpstreams, pointAtUpstream, UPSTREAM_CAPABILITY } from '../../e2e/gateway-support/gateway';
import { sdkUpstream, type SdkUpstream } from '../../e2e/gateway-support/sdk-upstream';
import { startSecurityStack, type SecurityStack } from './stack';

export type TargetKind = 'in-process' | 'gateway';

export interface Target {
  kind: TargetKind;
  stack: SecurityStack;
  /** The gateway target's upstream (what reached it); undefined in process. */
  upstream?: SdkUpstream;
  close(): Promise<void>;
}

/** The capability the gateway target serves through its upstream (the SDK upstream's one skill). */
export const GATEWAY_CAPABILITY = UPSTREAM_CAPABILITY;

/**
 * Boots the stack for `kind`; the label is suffixed with the kind so both can run side by side.
 * `seed`: the worked example's options, as for startSecurityStack.
 */
export async function startTarget(
  kind: TargetKind,
  label: string,
  overrides: Record<string, string> = {},
  seed: Parameters<typeof startSecurityStack>[2] = {},
): Promise<Target> {
  const tag = `${label}_${kind === 'gateway' ? 'gw' : 'ip'}`;
  if (kind === 'in-process') {
    const stack = await startSecurityStack(tag, overrides, seed);
    return { kind, stack, close: () => stack.close() };
  }
  const upstream = await sdkUpstream();
  // Not about approvals: name one kind the setup never changes, so the upstream change lands at once.
  const stack = await startSecurityStack(tag, { APPROVAL_DEFAULT_KINDS: 'undeprecate', ...overrides }, seed);
  try {
    await allowLoopbackUpstreams(stack);
    await pointAtUpstream(stack, { url: upstream.jsonrpc, binding: 'jsonrpc', version: '1.0' });
  } catch (error) {
    await stack.close();
    await upstream.close();
    throw error;
  }
  return {
    kind,
    stack,
    upstream,
    async close() {
      await stack.close();
      await upstream.close();
    },
  };
}
