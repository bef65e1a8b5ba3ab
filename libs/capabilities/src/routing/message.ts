/**
 * The parts of an A2A 1.0 message the router reads, as wire JSON (camelCase, Part is a oneof
 * whose member key is its type). Pure types: the node's transport validates the request first.
 */
export interface WirePart {
  text?: string;
  /** base64 bytes. */
  raw?: string;
  url?: string;
  data?: unknown;
  mediaType?: string;
  filename?: string;
  metadata?: Record<string, unknown>;
}

export interface WireMessage {
  messageId: string;
  role: string;
  parts: WirePart[];
  contextId?: string;
  taskId?: string;
  metadata?: Record<string, unknown>;
  extensions?: string[];
  referenceTaskIds?: string[];
}

export type PartKind = 'text' | 'raw' | 'url' | 'data';

export function partKind(part: WirePart): PartKind | undefined {
  if (typeof part.text === 'string') return 'text';
  if (typeof part.raw === 'string') return 'raw';
  if (typeof part.url === 'string') return 'url';
  if (part.data !== undefined) return 'data';
  return undefined;
}

/**
 * The media type a part carries: its `mediaType` when given, else the type its kind implies
 * (text → text/plain, data → application/json, bytes or a URL → application/octet-stream).
 */
export function partMediaType(part: WirePart): string {
  if (typeof part.mediaType === 'string' && part.mediaType.trim() !== '') return normalizeMediaType(part.mediaType);
  switch (partKind(part)) {
    case 'text':
      return 'text/plain';
    case 'data':
      return 'application/json';
    default:
      return 'application/octet-stream';
  }
}

/** `Text/Plain; charset=utf-8` → `text/plain`: parameters never decide routing. */
export function normalizeMediaType(type: string): string {
  return type.split(';', 1)[0].trim().toLowerCase();
}

/** Whether `type` is covered by `pattern` (exact, `type/*` or `*\/*`). */
export function mediaTypeMatches(type: string, pattern: string): boolean {
  if (type === pattern) return true; // the hot path: modes in manifests are already normalized
  const p = normalizeMediaType(pattern);
  if (p === '*/*' || p === '*') return true;
  if (p.endsWith('/*')) return type.startsWith(p.slice(0, -1));
  return p === type;
}

/** The text the classifier reads: every text part, in order. */
export function messageText(message: Pick<WireMessage, 'parts'>): string {
  return message.parts
    .map((p) => p.text)
    .filter((t): t is string => typeof t === 'string')
    .join('\n');
}
