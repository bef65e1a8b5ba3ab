/**
 * The card a 0.3 client reads (a request for the card without `A2A-Version: 1.x`, on an agent
 * that serves 0.3): a hybrid, as the A2A SDKs emit it, with the 0.3 top-level fields (`url`,
 * `preferredTransport`, `additionalInterfaces`, `protocolVersion`,
 * `supportsAuthenticatedExtendedCard`, 0.3 `securitySchemes` and `security`) AND the 1.0
 * `supportedInterfaces[]`, so a 1.0 client that reads it anyway still finds every interface.
 * It carries no `signatures` (the 1.0 card's do not cover it; ADR 0133).
 */
type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

interface Iface {
  url: string;
  protocolBinding: string;
  protocolVersion: string;
}

/** 0.3 transport names: JSONRPC, GRPC, HTTP+JSON (the same strings as 1.0's bindings). */
const isV03 = (i: Iface) => /^0\.3(\.\d+)?$/.test(i.protocolVersion);

/** One 1.0 security scheme (a oneof wrapper) → the 0.3 OpenAPI-style object with `type`. */
function schemeToV03(s: unknown): Json {
  if (!isObject(s)) return {};
  const [key, raw] = Object.entries(s)[0] ?? [];
  const v = isObject(raw) ? raw : {};
  const description = typeof v.description === 'string' ? { description: v.description } : {};
  switch (key) {
    case 'httpAuthSecurityScheme':
      return { type: 'http', scheme: v.scheme, ...(v.bearerFormat !== undefined ? { bearerFormat: v.bearerFormat } : {}), ...description };
    case 'apiKeySecurityScheme':
      return { type: 'apiKey', in: v.location, name: v.name, ...description };
    case 'oauth2SecurityScheme':
      return {
        type: 'oauth2',
        flows: v.flows,
        ...(v.oauth2MetadataUrl !== undefined ? { oauth2MetadataUrl: v.oauth2MetadataUrl } : {}),
        ...description,
      };
    case 'openIdConnectSecurityScheme':
      return { type: 'openIdConnect', openIdConnectUrl: v.openIdConnectUrl, ...description };
    case 'mtlsSecurityScheme':
      return { type: 'mutualTLS', ...description };
    default:
      return {};
  }
}

/** `[{schemes:{name:{list:[scopes]}}}]` → `[{name:[scopes]}]`. */
function requirementsToV03(reqs: unknown): Json[] | undefined {
  if (!Array.isArray(reqs)) return undefined;
  return reqs.map((r) => {
    const schemes = isObject(r) && isObject(r.schemes) ? r.schemes : {};
    return Object.fromEntries(
      Object.entries(schemes).map(([name, scopes]) => [name, isObject(scopes) && Array.isArray(scopes.list) ? scopes.list : []]),
    );
  });
}

/** The hybrid 0.3 card for a 1.0 card (public or extended) of an agent that lists 0.3 interfaces. */
export function cardToV03(card: Json): Json {
  const interfaces = (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []) as Iface[];
  const legacy = interfaces.filter(isV03);
  const primary = legacy[0] ?? interfaces[0];
  const capabilities = isObject(card.capabilities) ? card.capabilities : {};
  const { extendedAgentCard, ...caps03 } = capabilities;
  const out: Json = {
    ...card,
    protocolVersion: '0.3.0',
    url: primary?.url,
    preferredTransport: primary?.protocolBinding ?? 'JSONRPC',
    capabilities: caps03,
    supportsAuthenticatedExtendedCard: extendedAgentCard === true,
  };
  if (legacy.length > 1) out.additionalInterfaces = legacy.map((i) => ({ url: i.url, transport: i.protocolBinding }));
  if (isObject(card.securitySchemes)) {
    out.securitySchemes = Object.fromEntries(Object.entries(card.securitySchemes).map(([k, s]) => [k, schemeToV03(s)]));
  }
  delete out.securityRequirements;
  // The control plane signed the 1.0 card (A2A §8.4); those signatures cannot verify over this
  // hybrid, which the node derives and cannot sign (it holds no key). Served unsigned, so a 0.3
  // client that requires signatures sees an unsigned card rather than one that looks tampered.
  delete out.signatures;
  const security = requirementsToV03(card.securityRequirements);
  if (security) out.security = security;
  if (Array.isArray(card.skills)) {
    out.skills = card.skills.map((s: unknown) => {
      if (!isObject(s) || s.securityRequirements === undefined) return s;
      const { securityRequirements, ...rest } = s;
      return { ...rest, security: requirementsToV03(securityRequirements) };
    });
  }
  return out;
}

/**
 * The 0.3 proto AgentCard for a 1.0 card: 1.0's security schemes and requirements already are
 * the proto forms (`{httpAuthSecurityScheme:{…}}`, `{schemes:{name:{list}}}`), so only the 0.3
 * top-level fields change (`url`, `preferredTransport`, `additionalInterfaces`, `protocolVersion`,
 * `supportsAuthenticatedExtendedCard`, `security`).
 */
export function cardToV03Proto(card: Json): Json {
  const interfaces = (Array.isArray(card.supportedInterfaces) ? card.supportedInterfaces : []) as {
    url: string;
    protocolBinding: string;
    protocolVersion: string;
  }[];
  const legacy = interfaces.filter((i) => /^0\.3(\.\d+)?$/.test(i.protocolVersion));
  const primary = legacy.find((i) => i.protocolBinding === 'HTTP+JSON') ?? legacy[0];
  const capabilities = isObject(card.capabilities) ? card.capabilities : {};
  const { extendedAgentCard, ...caps03 } = capabilities;
  const { supportedInterfaces: _interfaces, securityRequirements, signatures: _signatures, ...rest } = card;
  void _interfaces;
  void _signatures;
  const out: Json = {
    ...rest,
    protocolVersion: '0.3.0',
    url: primary?.url,
    preferredTransport: primary?.protocolBinding ?? 'HTTP+JSON',
    additionalInterfaces: legacy.map((i) => ({ url: i.url, transport: i.protocolBinding })),
    capabilities: caps03,
    supportsAuthenticatedExtendedCard: extendedAgentCard === true,
  };
  if (securityRequirements !== undefined) out.security = securityRequirements;
  return out;
}
