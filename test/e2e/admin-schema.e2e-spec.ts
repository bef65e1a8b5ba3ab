/**
 * The committed schema and the guard coverage of every GraphQL entry point, over the whole app
 * (other features' resolvers included, whenever they are added).
 * After an intended schema change: `UPDATE_SCHEMA=1 npx jest test/e2e/admin-schema` rewrites
 * apps/control-plane/schema.graphql.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GUARDS_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import { GraphQLSchemaHost } from '@nestjs/graphql';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import { AppModule } from '../../apps/control-plane/src/app.module';
import { AdminGuard } from '../../apps/control-plane/src/auth/admin.guard';
import { SCHEMA_FILE } from '../../apps/control-plane/src/graphql/graphql-api.module';
import { bootApp } from '../support/boot';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const RESOLVER_TYPE = 'graphql:resolver_type';
const RESOLVER_NAME = 'graphql:resolver_name';
const RESOLVE_PROPERTY = 'graphql:resolve_property';

describe('admin GraphQL schema', () => {
  let db: TestDatabase;
  let app: NestFastifyApplication;
  const generated = join(mkdtempSync(join(tmpdir(), 'cp-schema-')), 'schema.graphql');

  beforeAll(async () => {
    db = await createTestDatabase('admin_schema');
    ({ app } = await bootApp(
      AppModule,
      testConfig({ DATABASE_URL: db.url, REDIS_KEY_PREFIX: `test:admin-schema:${process.pid}:`, GRAPHQL_SCHEMA_FILE: generated }),
    ));
  });
  afterAll(async () => {
    await app?.close();
    await db?.drop();
  });

  it('matches the committed, sorted apps/control-plane/schema.graphql', () => {
    const fresh = readFileSync(generated, 'utf8');
    if (process.env.UPDATE_SCHEMA === '1') writeFileSync(SCHEMA_FILE, fresh);
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    if (committed !== fresh) {
      throw new Error(
        `apps/control-plane/schema.graphql is out of date: run UPDATE_SCHEMA=1 npx jest test/e2e/admin-schema and commit it (fresh copy: ${generated})`,
      );
    }
    expect(committed).toContain('type Query');
  });

  it('guards every query, mutation and field resolver with AdminGuard', () => {
    const entryPoints: { where: string; kind: string; name: string; guarded: boolean }[] = [];
    for (const module of app.get(ModulesContainer).values()) {
      for (const wrapper of module.providers.values()) {
        const type = wrapper.metatype as (new (...args: never[]) => unknown) | undefined;
        if (!type?.prototype || wrapper.isAlias) continue;
        const classGuards: unknown[] = Reflect.getMetadata(GUARDS_METADATA, type) ?? [];
        for (const key of Object.getOwnPropertyNames(type.prototype)) {
          if (key === 'constructor') continue;
          const method: unknown = Object.getOwnPropertyDescriptor(type.prototype, key)?.value; // never trigger getters
          if (typeof method !== 'function') continue;

          const kind: string | undefined =
            Reflect.getMetadata(RESOLVER_TYPE, method) ?? (Reflect.getMetadata(RESOLVE_PROPERTY, method) ? 'Field' : undefined);
          if (!kind) continue;
          const guards = [...classGuards, ...(Reflect.getMetadata(GUARDS_METADATA, method) ?? [])];
          entryPoints.push({
            where: `${type.name}.${key}`,
            kind,
            name: Reflect.getMetadata(RESOLVER_NAME, method) ?? key,
            guarded: guards.includes(AdminGuard),
          });
        }
      }
    }
    const unguarded = entryPoints.filter((e) => !e.guarded).map((e) => `${e.kind} ${e.where}`);
    expect(unguarded).toEqual([]);

    // The walk must have seen every root field the schema exposes, or it proves nothing.
    const schema = app.get(GraphQLSchemaHost).schema;
    const rootFields = [
      ...Object.keys(schema.getQueryType()?.getFields() ?? {}).map((f) => `Query.${f}`),
      ...Object.keys(schema.getMutationType()?.getFields() ?? {}).map((f) => `Mutation.${f}`),
      ...Object.keys(schema.getSubscriptionType()?.getFields() ?? {}).map((f) => `Subscription.${f}`),
    ].sort();
    const seen = [...new Set(entryPoints.filter((e) => e.kind !== 'Field').map((e) => `${e.kind}.${e.name}`))].sort();
    expect(seen).toEqual(rootFields);
    expect(rootFields.length).toBeGreaterThan(0);
  });
});
