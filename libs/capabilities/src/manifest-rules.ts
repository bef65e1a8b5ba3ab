/** Cross-field rules of one manifest document, read defensively from the raw input. */
import { LIMIT_KEY } from './formats';
import { jsonPath } from './json-path';
import { SKILL_LIST_FIELDS, tenantSlug } from './manifest-schema';
import type { ValidationIssue } from './types';

type Raw = Record<string, unknown>;
const isObject = (v: unknown): v is Raw => typeof v === 'object' && v !== null && !Array.isArray(v);
const present = (v: unknown) => v !== undefined && v !== null && v !== '';

function duplicates(value: unknown, segments: PropertyKey[], what: string, out: ValidationIssue[]): void {
  if (!Array.isArray(value)) return;
  const seen = new Map<unknown, number>();
  value.forEach((v, i) => {
    const first = seen.get(v);
    if (first !== undefined)
      out.push({ path: jsonPath([...segments, i]), message: `duplicate ${what} ${JSON.stringify(v)} (also at index ${first})` });
    else seen.set(v, i);
  });
}

function tenants(value: unknown, out: ValidationIssue[]): void {
  if (value === undefined) return void out.push({ path: '$.tenants', message: 'is required: "*" or a non-empty list of tenant slugs' });
  if (value === '*') return;
  if (!Array.isArray(value)) return void out.push({ path: '$.tenants', message: 'must be "*" or a non-empty list of tenant slugs' });
  if (value.length === 0) return void out.push({ path: '$.tenants', message: 'must not be empty: use "*" for every tenant' });
  value.forEach((t, i) => {
    const r = tenantSlug.safeParse(t);
    if (!r.success) out.push({ path: `$.tenants[${i}]`, message: r.error.issues[0]?.message ?? 'invalid tenant' });
  });
  duplicates(value, ['tenants'], 'tenant', out);
}

export function manifestRuleIssues(doc: unknown): ValidationIssue[] {
  if (!isObject(doc)) return [];
  const out: ValidationIssue[] = [];
  tenants(doc.tenants, out);
  duplicates(doc.requires_scopes, ['requires_scopes'], 'scope', out);
  duplicates(doc.tools, ['tools'], 'tool', out);
  if (isObject(doc.skill)) {
    for (const key of SKILL_LIST_FIELDS) duplicates(doc.skill[key], ['skill', key], 'entry', out);
  }
  if (isObject(doc.routing)) {
    for (const key of ['terms', 'negative_terms'] as const) duplicates(doc.routing[key], ['routing', key], 'term', out);
    // A word both pulling towards and pushing away from a capability is a mistake either way.
    const pull = Array.isArray(doc.routing.terms)
      ? new Set(doc.routing.terms.map((t) => String(t).trim().toLowerCase()))
      : new Set<string>();
    if (Array.isArray(doc.routing.negative_terms))
      doc.routing.negative_terms.forEach((t, i) => {
        if (pull.has(String(t).trim().toLowerCase()))
          out.push({ path: jsonPath(['routing', 'negative_terms', i]), message: `${JSON.stringify(t)} is also a routing term` });
      });
  }
  if (isObject(doc.limits)) {
    for (const key of Object.keys(doc.limits)) {
      if (!LIMIT_KEY.test(key)) out.push({ path: jsonPath(['limits', key]), message: 'limit names must be snake_case' });
    }
  }
  const state = doc.state;
  if (state === 'deprecated' && !present(doc.replaced_by) && !present(doc.deprecation_reason)) {
    out.push({
      path: '$.replaced_by',
      message: 'a deprecated capability must name its replacement (replaced_by) or give a deprecation_reason',
    });
  }
  if (present(doc.replaced_by) && state !== 'deprecated' && state !== 'removed') {
    out.push({ path: '$.replaced_by', message: 'only a deprecated or removed capability has a replacement' });
  }
  if (present(doc.sunset_at) && state !== 'deprecated' && state !== 'removed') {
    out.push({ path: '$.sunset_at', message: 'only a deprecated capability has a sunset date (deprecate it first)' });
  }
  if (present(doc.replaced_by) && doc.replaced_by === doc.id) {
    out.push({ path: '$.replaced_by', message: 'a capability cannot replace itself' });
  }
  // A public capability is advertised to anyone, so scopes or tenants on it would only mislead
  // a reader into thinking it is protected; restricted capabilities are `extended`.
  if (doc.visibility === 'public') {
    if (Array.isArray(doc.requires_scopes) && doc.requires_scopes.length > 0) {
      out.push({
        path: '$.requires_scopes',
        message: 'a public capability is open to every caller: use visibility "extended" to require scopes',
      });
    }
    if (doc.tenants !== undefined && doc.tenants !== '*') {
      out.push({
        path: '$.tenants',
        message: 'a public capability is open to every tenant: use visibility "extended" to restrict tenants',
      });
    }
  }
  return out;
}
