/**
 * The security stack as a gateway (issue 28): a platform admin lets the finance agent reach
 * upstreams on 127.0.0.1, reconcile-invoice's manifest names an upstream, and the node serves it
 * once synced. Also what the gateway suites ask of what reached the upstream: the exchanged token's
 * claims, verified as an upstream would (against the JWKS, with its own audience).
 */
import { randomBytes } from 'node:crypto';
import { createLocalJWKSet, jwtVerify, type JSONWebKeySet, type JWTPayload } from 'jose';
import { Message } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { NodeSync } from '@cp/node-sdk';
import { gqlOk } from '../../support/graphql-client';
import { until } from '../../support/until';
import { platformAdmin } from '../../security/support/push';
import { AGENT, type Json, type SecurityStack } from '../../security/support/stack';

const MANIFEST = 'query($a: String!, $c: String!) { manifest(agentId: $a, capabilityId: $c) { document } agent(id: $a) { revision } }';
const UPDATE_MANIFEST = 'mutation($input: ManifestDocumentInput!) { updateManifest(input: $input) { revision } }';
const UPDATE_AGENT = 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision } }';

/** The capability the gateway suites serve through an upstream. */
export const UPSTREAM_CAPABILITY = 'reconcile-invoice';

/** A platform admin lets the agent reach 127.0.0.1 upstreams (`protocol.upstreamAllow`), with any other protocol fields given. */
export async function allowLoopbackUpstreams(stack: SecurityStack, protocol: Json = {}): Promise<void> {
  const admin = platformAdmin(stack);
  const agent = await gqlOk(stack.cpUrl, admin, `{ agent(id: "${AGENT}") { revision } }`);
  await gqlOk(stack.cpUrl, admin, UPDATE_AGENT, {
    input: { id: AGENT, expectedRevision: agent.agent.revision, protocol: { ...protocol, upstreamAllow: ['127.0.0.1'] } },
  });
}

/** Names `upstream` in reconcile-invoice's manifest (as a platform admin); the new revision. */
export async function setUpstream(stack: SecurityStack, upstream: Json): Promise<number> {
  const admin = platformAdmin(stack);
  const current = await gqlOk(stack.cpUrl, admin, MANIFEST, { a: AGENT, c: UPSTREAM_CAPABILITY });
  const { updateManifest } = await gqlOk(stack.cpUrl, admin, UPDATE_MANIFEST, {
    input: { agentId: AGENT, expectedRevision: current.agent.revision, manifest: { ...current.manifest.document, upstream } },
  });
  return updateManifest.revision as number;
}

/** `setUpstream`, then waits until the node serves that revision. */
export async function pointAtUpstream(stack: SecurityStack, upstream: Json): Promise<void> {
  const revision = await setUpstream(stack, upstream);
  const sync = stack.node.get(NodeSync);
  await until('the node serves the upstream manifest', () => (sync.current()?.revision ?? 0) >= revision, 30_000);
}

/** The control plane's public keys, as an upstream would fetch them. */
export async function jwksOf(stack: SecurityStack): Promise<ReturnType<typeof createLocalJWKSet>> {
  return createLocalJWKSet((await (await fetch(`${stack.cpUrl}/.well-known/jwks.json`)).json()) as JSONWebKeySet);
}

/**
 * The claims of the token an upstream at `upstreamUrl` received, verified against the JWKS with
 * the upstream's own audience. With `caller`, also that neither the caller's token nor the node's
 * was what it got.
 */
export async function upstreamClaims(
  stack: SecurityStack,
  jwks: ReturnType<typeof createLocalJWKSet>,
  upstreamUrl: string,
  authorization: string | undefined,
  caller?: string,
): Promise<JWTPayload> {
  expect(authorization).toMatch(/^Bearer /);
  if (caller !== undefined) {
    expect(authorization).not.toContain(caller);
    expect(authorization).not.toContain(stack.nodeConfig.NODE_TOKEN!);
  }
  const { payload } = await jwtVerify(authorization!.slice(7), jwks, {
    audience: new URL(upstreamUrl).origin,
    issuer: stack.cpConfig.JWT_ISSUER,
  });
  return payload;
}

/** A user message for reconcile-invoice (the SDK's 1.0 shape). */
export const reconcileMessage = (text: string) =>
  Message.fromJSON({
    messageId: `m-${randomBytes(4).toString('hex')}`,
    role: 'ROLE_USER',
    parts: [{ text }],
    metadata: { skillId: UPSTREAM_CAPABILITY },
  });

/** Streams `text` to reconcile-invoice, remembering the node task id; `done` settles when the stream ends. */
export function streamOf(client: Client, text: string): { events: Json[]; done: Promise<void>; taskId(): string | undefined } {
  const events: Json[] = [];
  let taskId: string | undefined;
  const done = (async () => {
    for await (const e of client.sendMessageStream({ message: reconcileMessage(text) } as never)) {
      events.push(e);
      const value = (e as Json).payload?.value as Json | undefined;
      const id = value?.id ?? value?.taskId;
      if (typeof id === 'string') taskId = id;
    }
  })();
  return { events, done, taskId: () => taskId };
}
