/**
 * The official `@a2a-js/sdk` clients as e2e suites drive a node with them: every request carries
 * the caller's bearer token (the SDK takes a fetch, not a token).
 */
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  RestTransportFactory,
  type Client,
} from '@a2a-js/sdk/client';

/** fetch with `Authorization: Bearer <token>` on every request. */
export const authedFetch =
  (token: string): typeof fetch =>
  (input, init) => {
    const headers = new Headers(init?.headers);
    headers.set('authorization', `Bearer ${token}`);
    return fetch(input, { ...init, headers });
  };

/** The SDK's 1.0 client: reads the card at `nodeUrl` (A2A-Version: 1.0) and picks the 1.0 JSON-RPC interface. */
export const sdkClient10 = (nodeUrl: string, token: string): Promise<Client> =>
  new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl: authedFetch(token) })],
    }),
  ).createFromUrl(nodeUrl);

/**
 * The SDK's 0.3 client: the card a 0.3 client reads (no A2A-Version), taken as a pure 0.3 card
 * (its 1.0 interface list removed), so the SDK's resolver and transport factory choose a legacy
 * transport, which speaks 0.3 method names and shapes without A2A-Version. Over `http+json` the
 * client prefers HTTP+JSON (the card lists it among additionalInterfaces) and speaks `/v1/…`
 * proto-JSON. `fetchImpl` carries the caller's token (`authedFetch`), and may record what it sends.
 */
export async function sdkClient03(nodeUrl: string, binding: 'jsonrpc' | 'http+json', fetchImpl: typeof fetch): Promise<Client> {
  const card = (await (await fetch(`${nodeUrl}/.well-known/agent-card.json`)).json()) as Record<string, unknown>;
  delete card.supportedInterfaces;
  if (binding === 'http+json') {
    card.preferredTransport = 'HTTP+JSON';
    card.url = `${nodeUrl}/a2a/rest`;
  }
  const transport =
    binding === 'jsonrpc'
      ? new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })
      : new RestTransportFactory({ fetchImpl, legacyCompat: { enabled: true } });
  return new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      cardResolver: new DefaultAgentCardResolver({ legacyCompat: { enabled: true } }),
      transports: [transport],
    }),
  ).createFromAgentCard(card as never);
}
