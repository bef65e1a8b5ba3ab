import { isMap, isPair, isScalar, isSeq, LineCounter, parseAllDocuments, type Document, type Node as YamlNode } from 'yaml';

/** A position in the text: 1-based line and column, and the 0-based offset. */
export interface Position {
  line: number;
  column: number;
  offset: number;
}

/** `$.skill.tags[1]`, `$[0].id`, `$['odd key']` → ['skill', 'tags', 1]. Undefined when it is not a path. */
export function parsePath(path: string): (string | number)[] | undefined {
  if (!path.startsWith('$')) return undefined;
  const out: (string | number)[] = [];
  const re = /\.([^.[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  let at = 1;
  while (at < path.length) {
    re.lastIndex = at;
    const m = re.exec(path);
    if (!m) return undefined;
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (m[3] ?? m[4])!));
    at = re.lastIndex;
  }
  return out;
}

function positionOf(counter: LineCounter, offset: number): Position {
  const { line, col } = counter.linePos(offset);
  return { line, column: col, offset };
}

/**
 * JSON is YAML, so one parser serves both. A document of several `---` parts (or one list) holds
 * the manifests as items: `$[i]` addresses the i-th document when there are several.
 */
function parse(text: string): { docs: Document.Parsed[]; counter: LineCounter } {
  const counter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: counter, uniqueKeys: false });
  return { docs: Array.isArray(docs) ? docs : [], counter };
}

/**
 * Where the value at `path` is written in `text` (JSON or YAML): the line of its key (or of the
 * item, in a list). When the path does not exist (a missing required field), the deepest part that
 * does; undefined only when the text cannot be parsed or the path is malformed.
 */
export function locatePath(text: string, path: string): Position | undefined {
  const parts = parsePath(path);
  if (!parts) return undefined;
  const { docs, counter } = parse(text);
  if (docs.length === 0 || docs.some((d) => d.errors.length > 0)) return undefined;
  let rest = parts;
  let node: unknown = docs[0]!.contents;
  if (docs.length > 1 && typeof parts[0] === 'number') {
    node = docs[parts[0]]?.contents;
    rest = parts.slice(1);
    if (node === undefined) return undefined;
  }
  let at = (node as YamlNode | null)?.range?.[0] ?? 0;
  for (const key of rest) {
    if (isMap(node)) {
      const pair = node.items.find((p) => isPair(p) && isScalar(p.key) && String(p.key.value) === String(key));
      if (!pair) break;
      at = (pair.key as YamlNode).range?.[0] ?? at;
      node = pair.value;
    } else if (isSeq(node) && typeof key === 'number') {
      const item = node.items[key] as YamlNode | undefined;
      if (!item) break;
      at = item.range?.[0] ?? at;
      node = item;
    } else break;
  }
  return positionOf(counter, at);
}

/** The first syntax error of a JSON or YAML text, with its line and column; undefined when it parses. */
export function syntaxError(text: string): { message: string; position: Position } | undefined {
  const { docs, counter } = parse(text);
  for (const doc of docs) {
    const error = doc.errors[0];
    if (!error) continue;
    const offset = Math.min(error.pos[0], text.length);
    const message = error.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '');
    return { message, position: positionOf(counter, offset) };
  }
  return undefined;
}

/** The object path (keys and indices) that contains `offset`, for completion of field names there. */
export function parentPathAt(text: string, offset: number): (string | number)[] {
  const { docs } = parse(text);
  const doc = docs.find((d) => d.range[0] <= offset && offset <= d.range[2]) ?? docs[0];
  const path: (string | number)[] = [];
  let node: unknown = doc?.contents;
  for (;;) {
    if (isMap(node)) {
      const pair = node.items.find((p) => {
        const v = p.value as YamlNode | null;
        return v && (isMap(v) || isSeq(v)) && v.range && v.range[0] <= offset && offset <= v.range[1];
      });
      if (!pair || !isScalar(pair.key)) return path;
      path.push(String(pair.key.value));
      node = pair.value;
    } else if (isSeq(node)) {
      const i = node.items.findIndex((v) => {
        const r = (v as YamlNode | null)?.range;
        return r && (isMap(v) || isSeq(v)) && r[0] <= offset && offset <= r[1];
      });
      if (i < 0) return path;
      path.push(i);
      node = node.items[i];
    } else return path;
  }
}

/** Whether the text holds a list of manifests (a JSON or YAML list, or several YAML documents) rather than one. */
export function holdsSeveral(text: string): boolean {
  const { docs } = parse(text);
  return docs.length > 1 || isSeq(docs[0]?.contents);
}
