/**
 * The bytes an agent card signature covers (A2A §8.4.1): the card without `signatures`, with the
 * protobuf field-presence rules applied (§5.7: REQUIRED fields always present; `optional` fields
 * present when set; other fields omitted when they hold their default: "", false, 0, an empty
 * list or map), then RFC 8785 (JCS) canonical JSON.
 *
 * `sdkCompatiblePayload` is what the a2a-js and a2a-python SDKs compute instead: the same
 * defaults dropped, then every "", null, empty list and empty object dropped recursively,
 * REQUIRED or not. The two differ only for cards
 * holding such empties (e.g. `securityRequirements: [{schemes: {bearer: {list: []}}}, {}]`, which
 * the SDKs drop whole), and then the signer adds a second signature over the SDK bytes (ADR 0131).
 */
import canonicalize from 'canonicalize';
import type { AgentCapabilities, AgentCard, AgentExtension, AgentInterface, AgentSkill, EveryField } from '@cp/capabilities';

type FieldRule =
  | { kind: 'required'; of?: Schema }
  | { kind: 'optional' }
  | { kind: 'scalar' }
  | { kind: 'message'; of?: Schema }
  | { kind: 'list'; of?: Schema }
  | { kind: 'map'; of?: Schema }
  | { kind: 'struct' };
type Schema = Record<string, FieldRule>;
/**
 * A message's rules, one per field of our type for it (ADR 0213): a field added to the card or
 * skill shape does not compile until its presence rule is written here, since a missing rule
 * would sign it by the generic rule. `A2aOnly` names A2A fields our cards never carry but that a
 * card may hold (signed right when present).
 */
type Rules<T, A2aOnly extends string = never> = EveryField<T, FieldRule> & Record<A2aOnly, FieldRule>;

const stringList: Schema = { list: { kind: 'list' } };
const securityRequirement: Schema = { schemes: { kind: 'map', of: stringList } };
const agentInterface: Schema = {
  url: { kind: 'required' },
  protocolBinding: { kind: 'required' },
  tenant: { kind: 'scalar' },
  protocolVersion: { kind: 'required' },
} satisfies Rules<AgentInterface>;
const agentExtension: Schema = {
  uri: { kind: 'scalar' },
  description: { kind: 'scalar' },
  required: { kind: 'scalar' },
  params: { kind: 'struct' },
} satisfies Rules<AgentExtension>;
const agentSkill: Schema = {
  id: { kind: 'required' },
  name: { kind: 'required' },
  description: { kind: 'required' },
  tags: { kind: 'required' },
  examples: { kind: 'list' },
  inputModes: { kind: 'list' },
  outputModes: { kind: 'list' },
  securityRequirements: { kind: 'list', of: securityRequirement },
} satisfies Rules<AgentSkill, 'securityRequirements'>;
const agentCard: Schema = {
  name: { kind: 'required' },
  description: { kind: 'required' },
  supportedInterfaces: { kind: 'required', of: agentInterface },
  provider: {
    kind: 'message',
    of: { url: { kind: 'required' }, organization: { kind: 'required' } } satisfies Rules<NonNullable<AgentCard['provider']>>,
  },
  version: { kind: 'required' },
  documentationUrl: { kind: 'optional' },
  capabilities: {
    kind: 'required',
    of: {
      streaming: { kind: 'optional' },
      pushNotifications: { kind: 'optional' },
      extensions: { kind: 'list', of: agentExtension },
      extendedAgentCard: { kind: 'optional' },
    } satisfies Rules<AgentCapabilities>,
  },
  // SecurityScheme is a oneof of messages whose own fields follow the generic rule below.
  securitySchemes: { kind: 'map' },
  securityRequirements: { kind: 'list', of: securityRequirement },
  defaultInputModes: { kind: 'required' },
  defaultOutputModes: { kind: 'required' },
  skills: { kind: 'required', of: agentSkill },
  iconUrl: { kind: 'optional' },
} satisfies Rules<Omit<AgentCard, 'signatures'>>;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isDefault = (v: unknown) =>
  v === '' || v === false || v === 0 || v === null || (Array.isArray(v) ? v.length === 0 : isObject(v) && Object.keys(v).length === 0);

/** A message value: its known fields by their rule, unknown fields by the generic rule. */
function presence(value: unknown, schema: Schema | undefined): unknown {
  if (Array.isArray(value)) return value.map((v) => presence(v, schema));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    if (v === undefined) continue;
    const rule = schema?.[key];
    if (!rule) {
      // Unknown message (e.g. a security scheme): scalars, lists and maps drop their defaults.
      const inner = presence(v, undefined);
      if (!isDefault(inner) || isObject(v)) out[key] = inner;
      continue;
    }
    switch (rule.kind) {
      case 'required':
        out[key] = presence(v, rule.of);
        break;
      case 'optional':
      case 'message':
        out[key] = rule.kind === 'message' ? presence(v, rule.of) : v;
        break;
      case 'struct':
        out[key] = v;
        break;
      case 'scalar':
        if (!isDefault(v)) out[key] = v;
        break;
      case 'list':
        if (Array.isArray(v) && v.length > 0) out[key] = presence(v, rule.of);
        else if (!Array.isArray(v)) out[key] = v; // not a list: left as is, so the signature covers it
        break;
      case 'map':
        if (isObject(v)) {
          if (Object.keys(v).length > 0) out[key] = Object.fromEntries(Object.entries(v).map(([k, e]) => [k, presence(e, rule.of)]));
        } else out[key] = v;
        break;
    }
  }
  return out;
}

function withoutSignatures(card: unknown): Record<string, unknown> {
  if (!isObject(card)) throw new TypeError('an agent card must be a JSON object');
  const { signatures: _signatures, ...rest } = card;
  return rest;
}

/** RFC 8785 canonical JSON (the `canonicalize` package). */
export function jcs(value: unknown): string {
  const text = canonicalize(value);
  if (text === undefined) throw new TypeError('the card does not canonicalize');
  return text;
}

/** RFC 8785 canonical JSON of the card as A2A §8.4.1 defines it (what our signatures cover). */
export function cardSigningPayload(card: unknown): string {
  return jcs(presence(withoutSignatures(card), agentCard));
}

/** The SDKs' reading of §8.4.1: empties dropped recursively (see the file comment). */
export function sdkCompatiblePayload(card: unknown): string {
  return jcs(cleanEmpty(presence(withoutSignatures(card), agentCard)) ?? {});
}

/**
 * Both payloads of one card, for the signer: one presence pass, and the canonical form of each
 * top-level member computed once. The SDK bytes differ only in the members that hold an empty
 * the SDK reading drops (in our cards: `securityRequirements`); every other member's canonical
 * bytes (the skills, the bulk of a large card) are reused. JCS of an object is its members in
 * UTF-16 key order as `"key":value`, comma-separated, in braces: assembling them here gives the
 * same bytes as canonicalising the whole (the property tests check both against each other and
 * against the SDK).
 */
export function cardPayloads(card: unknown): { spec: string; sdk: string } {
  const present = presence(withoutSignatures(card), agentCard) as Record<string, unknown>;
  const keys = Object.keys(present)
    .sort()
    .filter((k) => present[k] !== undefined);
  const members = keys.map((k) => `${jcs(k)}:${jcs(present[k])}`);
  const spec = `{${members.join(',')}}`;
  if (!holdsEmpty(present)) return { spec, sdk: spec };
  const sdk: string[] = [];
  keys.forEach((k, i) => {
    if (!holdsEmpty(present[k])) sdk.push(members[i]);
    else {
      const cleaned = cleanEmpty(present[k]);
      if (cleaned !== null) sdk.push(`${jcs(k)}:${jcs(cleaned)}`);
    }
  });
  return { spec, sdk: `{${sdk.join(',')}}` };
}

/**
 * Whether cleanEmpty would change the value: an "", null, undefined, empty list or empty object
 * anywhere, or a "__proto__" member (the SDK rebuilds objects by assignment, which drops it).
 */
function holdsEmpty(value: unknown): boolean {
  if (value === '' || value === null || value === undefined) return true;
  if (Array.isArray(value)) return value.length === 0 || value.some(holdsEmpty);
  if (isObject(value)) {
    const keys = Object.keys(value);
    return keys.length === 0 || keys.includes('__proto__') || keys.some((k) => holdsEmpty(value[k]));
  }
  return false;
}

function cleanEmpty(value: unknown): unknown {
  if (value === '' || value === null || value === undefined) return null;
  if (Array.isArray(value)) {
    const list = value.map(cleanEmpty).filter((v) => v !== null);
    return list.length > 0 ? list : null;
  }
  if (isObject(value)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) {
      const c = cleanEmpty(v);
      if (c !== null) out[k] = c;
    }
    return Object.keys(out).length > 0 ? out : null;
  }
  return value;
}
