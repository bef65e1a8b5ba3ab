/**
 * Canonical JSON: object keys sorted by UTF-16 code units, no whitespace, numbers and strings as
 * JSON.stringify writes them. That is RFC 8785 (JCS) for the values a card holds, so the same
 * bytes can later be signed (A2A §8.4). undefined object members are omitted, like JSON.
 *
 * Fast path: copy with keys inserted in sorted order, then native JSON.stringify (about 8× faster
 * than writing by hand on a 10,000-skill card). V8 always emits integer-like keys ("7") first,
 * whatever the insertion order, so any such key sends the whole value to the hand-written path.
 */
export function canonicalJson(value: unknown): string {
  if (value === undefined) throw new TypeError('canonicalJson: cannot serialise undefined');
  try {
    return JSON.stringify(sortedCopy(value));
  } catch (error) {
    if (error !== INTEGER_KEY_FOUND) throw error;
    return canonicalJsonSlow(value);
  }
}

/** The reference writer: used when an object has integer-like keys, and to test the fast path. */
export function canonicalJsonSlow(value: unknown): string {
  const out: string[] = [];
  write(value, out);
  return out.join('');
}

// Thrown (one preallocated instance, compared by identity) to leave the fast path.
const INTEGER_KEY_FOUND = new Error('integer-like key');
const INTEGER_LIKE = /^(?:0|[1-9][0-9]*)$/;

function sortedCopy(value: unknown): unknown {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      return value;
    case 'object': {
      if (value === null) return null;
      if (Array.isArray(value)) {
        const out = new Array(value.length);
        for (let i = 0; i < value.length; i++) out[i] = value[i] === undefined ? null : sortedCopy(value[i]);
        return out;
      }
      const keys = Object.keys(value).sort();
      const out: Record<string, unknown> = {};
      for (const k of keys) {
        const v = (value as Record<string, unknown>)[k];
        if (v === undefined) continue;
        if (INTEGER_LIKE.test(k)) throw INTEGER_KEY_FOUND;
        // Plain assignment of "__proto__" would set the prototype and drop the member.
        if (k === '__proto__')
          Object.defineProperty(out, k, { value: sortedCopy(v), enumerable: true, writable: true, configurable: true });
        else out[k] = sortedCopy(v);
      }
      return out;
    }
    default:
      throw new TypeError(`canonicalJson: cannot serialise a ${typeof value}`);
  }
}

function write(value: unknown, out: string[]): void {
  switch (typeof value) {
    case 'string':
      out.push(JSON.stringify(value));
      return;
    case 'boolean':
      out.push(value ? 'true' : 'false');
      return;
    case 'number':
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      out.push(JSON.stringify(value));
      return;
    case 'object':
      if (value === null) return void out.push('null');
      if (Array.isArray(value)) {
        out.push('[');
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(',');
          const v: unknown = value[i];
          if (v === undefined) out.push('null');
          else write(v, out);
        }
        out.push(']');
        return;
      }
      writeObject(value as Record<string, unknown>, out);
      return;
    default:
      throw new TypeError(`canonicalJson: cannot serialise a ${typeof value}`);
  }
}

function writeObject(obj: Record<string, unknown>, out: string[]): void {
  const keys = Object.keys(obj).sort();
  out.push('{');
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    if (!first) out.push(',');
    first = false;
    out.push(JSON.stringify(k), ':');
    write(v, out);
  }
  out.push('}');
}
