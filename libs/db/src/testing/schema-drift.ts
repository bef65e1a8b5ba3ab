import { get_dmmf } from '@prisma/prisma-schema-wasm';
import { Client } from 'pg';

/**
 * Compares schema.prisma (parsed by Prisma's own schema wasm, no engine binary needed) with
 * what the migrations built in a real database: tables, columns (type, list, nullability,
 * default present), enums, primary keys, unique and plain indexes, and foreign keys.
 * Returns one human-readable line per difference; [] means no drift.
 */

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  isList: boolean;
  isRequired: boolean;
  hasDefaultValue: boolean;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
  relationToFields?: string[];
  relationOnDelete?: string;
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  fields: { name: string }[];
}
interface Dmmf {
  datamodel: {
    models: DmmfModel[];
    enums: { name: string; dbName?: string | null; values: { name: string; dbName?: string | null }[] }[];
    indexes: DmmfIndex[];
  };
}

const SCALAR_UDT: Record<string, string> = {
  String: 'text',
  Int: 'int4',
  BigInt: 'int8',
  Boolean: 'bool',
  DateTime: 'timestamp',
  Json: 'jsonb',
  Float: 'float8',
  Decimal: 'numeric',
  Bytes: 'bytea',
};
const NATIVE_UDT: Record<string, string> = {
  Date: 'date',
  Timestamptz: 'timestamptz',
  Uuid: 'uuid',
  VarChar: 'varchar',
  Integer: 'int4',
  SmallInt: 'int2',
};
const ON_DELETE: Record<string, string> = { Cascade: 'c', Restrict: 'r', NoAction: 'a', SetNull: 'n', SetDefault: 'd' };

export function parseSchema(schemaText: string): Dmmf {
  return JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: schemaText }))) as Dmmf;
}

export async function diffSchemaAgainstDatabase(schemaText: string, databaseUrl: string): Promise<string[]> {
  const dmmf = parseSchema(schemaText);
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return compare(dmmf, await readDatabase(client));
  } finally {
    await client.end();
  }
}

interface DbColumn {
  table: string;
  column: string;
  udt: string;
  nullable: boolean;
  hasDefault: boolean;
}
interface DbIndex {
  table: string;
  kind: 'id' | 'unique' | 'normal';
  columns: string[];
}
interface DbForeignKey {
  table: string;
  columns: string[];
  refTable: string;
  refColumns: string[];
  onDelete: string;
}
interface DbShape {
  columns: DbColumn[];
  indexes: DbIndex[];
  foreignKeys: DbForeignKey[];
  enums: Map<string, string[]>;
}

async function readDatabase(client: Client): Promise<DbShape> {
  const columns = await client.query<{ table: string; column: string; udt: string; nullable: string; default: string | null }>(`
    SELECT c.table_name AS table, c.column_name AS column, c.udt_name AS udt, c.is_nullable AS nullable, c.column_default AS default
      FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
     WHERE c.table_schema = current_schema() AND t.table_type = 'BASE TABLE' AND c.table_name <> '_prisma_migrations'`);
  const indexes = await client.query<{ table: string; primary: boolean; unique: boolean; columns: string[] }>(`
    SELECT t.relname AS table, i.indisprimary AS primary, i.indisunique AS unique,
           array_agg(a.attname::text ORDER BY k.ord) AS columns
      FROM pg_index i
      JOIN pg_class t ON t.oid = i.indrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()
      CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
      JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
     WHERE t.relname <> '_prisma_migrations'
     GROUP BY i.indexrelid, t.relname, i.indisprimary, i.indisunique`);
  const fks = await client.query<{ table: string; columns: string[]; ref_table: string; ref_columns: string[]; on_delete: string }>(`
    SELECT t.relname AS table, rt.relname AS ref_table, c.confdeltype AS on_delete,
           (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.conkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n) AS columns,
           (SELECT array_agg(a.attname::text ORDER BY k.ord) FROM unnest(c.confkey) WITH ORDINALITY k(n, ord) JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n) AS ref_columns
      FROM pg_constraint c
      JOIN pg_class t ON t.oid = c.conrelid
      JOIN pg_class rt ON rt.oid = c.confrelid
      JOIN pg_namespace n ON n.oid = t.relnamespace AND n.nspname = current_schema()
     WHERE c.contype = 'f'`);
  const enums = await client.query<{ name: string; values: string[] }>(`
    SELECT t.typname AS name, array_agg(e.enumlabel::text ORDER BY e.enumsortorder) AS values
      FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid
      JOIN pg_namespace n ON n.oid = t.typnamespace AND n.nspname = current_schema()
     GROUP BY t.typname`);
  return {
    columns: columns.rows.map((r) => ({
      table: r.table,
      column: r.column,
      udt: r.udt,
      nullable: r.nullable === 'YES',
      hasDefault: r.default !== null,
    })),
    indexes: indexes.rows.map((r) => ({ table: r.table, kind: r.primary ? 'id' : r.unique ? 'unique' : 'normal', columns: r.columns })),
    foreignKeys: fks.rows.map((r) => ({
      table: r.table,
      columns: r.columns,
      refTable: r.ref_table,
      refColumns: r.ref_columns,
      onDelete: r.on_delete,
    })),
    enums: new Map(enums.rows.map((r) => [r.name, r.values])),
  };
}

function compare(dmmf: Dmmf, db: DbShape): string[] {
  const problems: string[] = [];
  const models = dmmf.datamodel.models;
  const tableOf = new Map(models.map((m) => [m.name, m.dbName ?? m.name]));
  const columnOf = (model: DmmfModel, field: string) => {
    const f = model.fields.find((x) => x.name === field);
    return f?.dbName ?? field;
  };
  const enumNames = new Set(dmmf.datamodel.enums.map((e) => e.dbName ?? e.name));

  for (const e of dmmf.datamodel.enums) {
    const name = e.dbName ?? e.name;
    const expected = e.values.map((v) => v.dbName ?? v.name);
    const actual = db.enums.get(name);
    if (!actual) problems.push(`enum ${name}: missing in the database`);
    else if (actual.join(',') !== expected.join(','))
      problems.push(`enum ${name}: values [${actual.join(',')}] in the database, [${expected.join(',')}] in the schema`);
  }
  for (const name of db.enums.keys()) if (!enumNames.has(name)) problems.push(`enum ${name}: in the database but not in the schema`);

  const tables = new Set(tableOf.values());
  for (const table of new Set(db.columns.map((c) => c.table))) {
    if (!tables.has(table)) problems.push(`table ${table}: in the database but not in the schema`);
  }

  for (const model of models) {
    const table = tableOf.get(model.name)!;
    const dbColumns = new Map(db.columns.filter((c) => c.table === table).map((c) => [c.column, c]));
    if (dbColumns.size === 0) {
      problems.push(`table ${table}: missing in the database (model ${model.name})`);
      continue;
    }
    const scalarFields = model.fields.filter((f) => f.kind === 'scalar' || f.kind === 'enum');
    for (const field of scalarFields) {
      const column = field.dbName ?? field.name;
      const actual = dbColumns.get(column);
      const where = `${model.name}.${field.name}`;
      if (!actual) {
        problems.push(`${where}: column "${column}" missing in the database (add a migration)`);
        continue;
      }
      const base = field.kind === 'enum' ? field.type : (field.nativeType && NATIVE_UDT[field.nativeType[0]]) || SCALAR_UDT[field.type];
      const udt = field.isList ? `_${base}` : base;
      if (actual.udt !== udt) problems.push(`${where}: type ${actual.udt} in the database, ${udt} expected`);
      // Prisma creates list columns without NOT NULL.
      const nullable = field.isList ? true : !field.isRequired;
      if (actual.nullable !== nullable)
        problems.push(
          `${where}: ${actual.nullable ? 'nullable' : 'NOT NULL'} in the database, ${nullable ? 'nullable' : 'NOT NULL'} expected`,
        );
      if (actual.hasDefault !== field.hasDefaultValue)
        problems.push(
          `${where}: ${actual.hasDefault ? 'has a default' : 'has no default'} in the database, the schema says ${field.hasDefaultValue ? 'it has one' : 'none'}`,
        );
    }
    const fieldColumns = new Set(scalarFields.map((f) => f.dbName ?? f.name));
    for (const column of dbColumns.keys()) {
      if (!fieldColumns.has(column)) problems.push(`${model.name}: column "${column}" is in the database but not in the schema`);
    }

    const key = (kind: string, columns: string[]) => `${kind}(${columns.join(',')})`;
    const expectedIndexes = dmmf.datamodel.indexes
      .filter((i) => i.model === model.name && i.type !== 'fulltext')
      .map((i) =>
        key(
          i.type,
          i.fields.map((f) => columnOf(model, f.name)),
        ),
      );
    const actualIndexes = db.indexes.filter((i) => i.table === table).map((i) => key(i.kind, i.columns));
    for (const index of expectedIndexes)
      if (!actualIndexes.includes(index)) problems.push(`${model.name}: index ${index} missing in the database`);
    for (const index of actualIndexes)
      if (!expectedIndexes.includes(index)) problems.push(`${model.name}: index ${index} in the database but not in the schema`);

    const expectedFks = model.fields
      .filter((f) => f.kind === 'object' && f.relationFromFields && f.relationFromFields.length > 0)
      .map((f) => {
        const target = models.find((m) => m.name === f.type)!;
        const onDelete = ON_DELETE[f.relationOnDelete ?? (f.isRequired ? 'Restrict' : 'SetNull')];
        return `${f.relationFromFields!.map((n) => columnOf(model, n)).join(',')}->${tableOf.get(f.type)}(${f.relationToFields!.map((n) => columnOf(target, n)).join(',')}) on delete ${onDelete}`;
      });
    const actualFks = db.foreignKeys
      .filter((fk) => fk.table === table)
      .map((fk) => `${fk.columns.join(',')}->${fk.refTable}(${fk.refColumns.join(',')}) on delete ${fk.onDelete}`);
    for (const fk of expectedFks) if (!actualFks.includes(fk)) problems.push(`${model.name}: foreign key ${fk} missing in the database`);
    for (const fk of actualFks)
      if (!expectedFks.includes(fk)) problems.push(`${model.name}: foreign key ${fk} in the database but not in the schema`);
  }
  return problems;
}
