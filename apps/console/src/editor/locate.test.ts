import { describe, expect, it } from 'vitest';
import { locatePath, parentPathAt, parsePath, syntaxError } from './locate';
import { fieldsAt } from './manifest-fields';

const json = JSON.stringify(
  { id: 'invoice-lookup', skill: { name: '', tags: ['a', 'b'] }, upstream: { auth: { scopes: ['x'] } } },
  null,
  2,
);
const yaml = [
  'id: invoice-lookup',
  'skill:',
  '  name: ""',
  '  tags:',
  '    - a',
  '    - b',
  'upstream:',
  '  auth:',
  '    scopes: [x]',
  '',
].join('\n');

const lineOf = (text: string, path: string) => locatePath(text, path)?.line;

describe('parsePath', () => {
  it('reads keys, indices and quoted keys', () => {
    expect(parsePath('$')).toEqual([]);
    expect(parsePath('$.skill.tags[1]')).toEqual(['skill', 'tags', 1]);
    expect(parsePath("$[0]['odd key'].x")).toEqual([0, 'odd key', 'x']);
  });
  it('refuses what is not a path', () => {
    expect(parsePath('skill.name')).toBeUndefined();
    expect(parsePath('$..x')).toBeUndefined();
    expect(parsePath('$[x]')).toBeUndefined();
  });
});

describe('locatePath', () => {
  it('finds nested keys and array items in JSON', () => {
    expect(lineOf(json, '$.id')).toBe(2);
    expect(lineOf(json, '$.skill.name')).toBe(4);
    expect(lineOf(json, '$.skill.tags[1]')).toBe(7);
    expect(lineOf(json, '$.upstream.auth.scopes[0]')).toBe(13);
  });
  it('finds nested keys and array items in YAML', () => {
    expect(lineOf(yaml, '$.id')).toBe(1);
    expect(lineOf(yaml, '$.skill.name')).toBe(3);
    expect(lineOf(yaml, '$.skill.tags[1]')).toBe(6);
    expect(lineOf(yaml, '$.upstream.auth.scopes')).toBe(9);
    expect(locatePath(yaml, '$.upstream.auth.scopes[0]')).toEqual({ line: 9, column: 14, offset: yaml.indexOf('[x]') + 1 });
  });
  it('a missing field points at the deepest part that exists', () => {
    expect(lineOf(json, '$.skill.description')).toBe(3);
    expect(lineOf(yaml, '$.skill.tags[7]')).toBe(4);
    expect(lineOf(yaml, '$.owner')).toBe(1);
  });
  it('addresses the i-th manifest of a JSON list and of several YAML documents', () => {
    const list = JSON.stringify([{ id: 'a' }, { id: 'b', skill: { name: 'x' } }], null, 2);
    expect(lineOf(list, '$[1].skill.name')).toBe(8);
    const docs = 'id: a\n---\nid: b\nskill:\n  name: x\n';
    expect(lineOf(docs, '$[1].skill.name')).toBe(5);
    expect(lineOf(docs, '$[0].id')).toBe(1);
  });
  it('gives nothing for an unparseable text or a malformed path', () => {
    expect(locatePath('{ "id": ', '$.id')).toBeUndefined();
    expect(locatePath(json, 'skill')).toBeUndefined();
  });
});

describe('syntaxError', () => {
  it('names the line and column of a truncated JSON document', () => {
    const error = syntaxError('{\n  "id": "a",\n  "skill": {\n    "name": ');
    expect(error?.position.line).toBe(4);
    expect(error?.position.column).toBeGreaterThan(1);
  });
  it('names the line of broken YAML', () => {
    expect(syntaxError('id: a\nskill:\n  name: [x\n')?.position.line).toBeGreaterThanOrEqual(3);
    expect(syntaxError('id: a\nname: "unterminated')?.position.line).toBe(2);
  });
  it('is undefined when the text parses', () => {
    expect(syntaxError(json)).toBeUndefined();
    expect(syntaxError(yaml)).toBeUndefined();
  });
});

describe('completion context', () => {
  it('knows which object the cursor is in', () => {
    expect(parentPathAt(yaml, yaml.indexOf('name'))).toEqual(['skill']);
    expect(parentPathAt(json, json.indexOf('"scopes"'))).toEqual(['upstream', 'auth']);
    expect(fieldsAt(parentPathAt(json, json.indexOf('"scopes"')))).toContain('audience');
    expect(fieldsAt(parentPathAt(yaml, 0))).toContain('requires_scopes');
    expect(fieldsAt(['skill', 'tags', 0])).toEqual([]);
  });
});
