import { Global, Module } from '@nestjs/common';
import { Test, type TestingModule } from '@nestjs/testing';
import { AppConfigModule, AppConfigToken } from '@cp/common';
import {
  DbModule,
  PrismaService,
  REVISION_LISTENERS,
  RegistryError,
  RegistryErrorCode,
  RegistryModule,
  RegistrySnapshotRepository,
  RegistryWriter,
} from '@cp/db';
import { financeAgentExample, type RegistrySnapshot } from '@cp/capabilities';
import { testConfig } from '../support/config';
import { givenDb, type GivenDb } from '../support/given-db';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

// Each test works on an agent of its own, so the suite passes in any order (jest --randomize).
const heard: string[] = [];
const failingAgents = new Set<string>();
/** A listener that prepares (ADR 0365): what it was given inside the transaction, and after the commit. */
const prepared: { agentId: string; revision: number; name: string; committed: boolean }[] = [];
const handed: { agentId: string; revision: number; prepared: unknown }[] = [];
const failingPrepares = new Set<string>();

@Global()
@Module({
  providers: [
    {
      provide: REVISION_LISTENERS,
      useValue: [
        {
          revisionCommitted: async (agentId: string, revision: number) => {
            if (failingAgents.has(agentId)) throw new Error('redis down');
            heard.push(`${agentId}@${revision}`);
          },
        },
        {
          prepare: (snapshot: RegistrySnapshot) => {
            if (failingPrepares.has(snapshot.agentId)) throw new Error('cannot build');
            const entry = { agentId: snapshot.agentId, revision: snapshot.revision, name: snapshot.agent.name, committed: false };
            prepared.push(entry);
            return entry;
          },
          revisionCommitted: async (agentId: string, revision: number, given?: unknown) => {
            if (given) (given as { committed: boolean }).committed = true;
            handed.push({ agentId, revision, prepared: given });
          },
        },
      ],
    },
  ],
  exports: [REVISION_LISTENERS],
})
class ListenersModule {}

describe('RegistryWriter', () => {
  let db: TestDatabase;
  let moduleRef: TestingModule;
  let writer: RegistryWriter;
  let prisma: PrismaService;
  let given: GivenDb;

  beforeAll(async () => {
    db = await createTestDatabase('registry_writer');
    moduleRef = await Test.createTestingModule({ imports: [AppConfigModule, DbModule, ListenersModule, RegistryModule] })
      .overrideProvider(AppConfigToken)
      .useValue(testConfig({ DATABASE_URL: db.url }))
      .compile();
    writer = moduleRef.get(RegistryWriter);
    prisma = moduleRef.get(PrismaService);
    given = givenDb(db.url);
  });
  afterAll(async () => {
    await given.close();
    await moduleRef.close();
    await db.drop();
  });

  /** A fresh agent named "Finance Agent" at revision 1. */
  const anAgent = async () => (await given.agent()).id;
  const agentRow = (id: string) => prisma.agent.findUniqueOrThrow({ where: { id } });
  const rename = (agentId: string, name: string, expectedRevision?: number) =>
    writer.change({ agentId, expectedRevision, actor: 'user:alice', summary: `rename to ${name}` }, async (tx) => {
      const before = await tx.agent.findUniqueOrThrow({ where: { id: agentId }, select: { name: true } });
      await tx.agent.update({ where: { id: agentId }, data: { name } });
      return { result: name, audit: [{ action: 'agent.update', targetType: 'agent', targetId: agentId, before, after: { name } }] };
    });

  it('bumps the revision, records the outbox row and the audit event in one transaction, then tells listeners', async () => {
    const id = await anAgent();
    const { revision } = await rename(id, 'Finance Agent 2', 1);
    expect(revision).toBe(2);
    expect(heard.filter((h) => h.startsWith(`${id}@`))).toEqual([`${id}@2`]);
    const outbox = await prisma.registryRevision.findUniqueOrThrow({
      where: { agentId_revision: { agentId: id, revision: 2 } },
    });
    expect(outbox).toMatchObject({ actor: 'user:alice', publishedAt: null });
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { agentId: id, revision: 2 } });
    expect(audit).toMatchObject({
      actor: 'user:alice',
      action: 'agent.update',
      agentId: id,
      before: { name: 'Finance Agent' },
      after: { name: 'Finance Agent 2' },
    });
  });

  it('refuses a stale expectedRevision and writes nothing', async () => {
    const id = await anAgent();
    await rename(id, 'Finance Agent 2', 1);
    const before = await prisma.auditEvent.count({ where: { agentId: id } });
    const error = await rename(id, 'Stale', 1).catch((e: RegistryError) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).code).toBe(RegistryErrorCode.StaleRevision);
    expect((error as RegistryError).message).toMatch(/is at revision 2, not 1/);
    expect(await agentRow(id)).toMatchObject({ name: 'Finance Agent 2', revision: 2 });
    expect(await prisma.auditEvent.count({ where: { agentId: id } })).toBe(before);
    // The agent's first revision came with the factory's row: only the rename wrote an outbox row.
    expect(await prisma.registryRevision.count({ where: { agentId: id } })).toBe(1);
  });

  it('answers AGENT_NOT_FOUND for an unknown agent', async () => {
    const error = await writer
      .change({ agentId: 'nope', actor: 'a', summary: 's' }, async () => ({ result: 1, audit: [] }))
      .catch((e: RegistryError) => e);
    expect((error as RegistryError).code).toBe(RegistryErrorCode.AgentNotFound);
  });

  it('rolls back everything when the change itself fails', async () => {
    const id = await anAgent();
    await expect(
      writer.change({ agentId: id, actor: 'a', summary: 's' }, async (tx) => {
        await tx.agent.update({ where: { id }, data: { name: 'half' } });
        throw new Error('validation failed midway');
      }),
    ).rejects.toThrow('validation failed midway');
    expect(await agentRow(id)).toMatchObject({ name: 'Finance Agent', revision: 1 });
    expect(await prisma.registryRevision.count({ where: { agentId: id } })).toBe(0);
    expect(await prisma.auditEvent.count({ where: { agentId: id } })).toBe(0);
  });

  it('serializes concurrent changes: revisions are gapless and each expectedRevision wins once', async () => {
    const id = await anAgent();
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => rename(id, `racer ${i}`, 1)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await Promise.all(Array.from({ length: 5 }, (_, i) => rename(id, `free ${i}`)));
    const revisions = (await prisma.registryRevision.findMany({ where: { agentId: id }, orderBy: { revision: 'asc' } })).map(
      (r) => r.revision,
    );
    expect(revisions).toEqual([2, 3, 4, 5, 6, 7]);
    expect((await agentRow(id)).revision).toBe(7);
  });

  it('keeps the commit when a listener fails (the outbox row stays unpublished)', async () => {
    const id = await anAgent();
    failingAgents.add(id);
    const { revision } = await rename(id, 'while redis is down');
    expect(revision).toBe(2);
    expect((await agentRow(id)).revision).toBe(revision);
    expect(heard.filter((h) => h.startsWith(`${id}@`))).toEqual([]);
    expect(
      (await prisma.registryRevision.findUniqueOrThrow({ where: { agentId_revision: { agentId: id, revision } } })).publishedAt,
    ).toBeNull();
  });

  it('hands a preparing listener the new revision as its own transaction sees it, and what it prepared only after the commit', async () => {
    const id = await anAgent();
    const { revision } = await rename(id, 'Prepared');
    const mine = prepared.filter((p) => p.agentId === id);
    // Read after the work, before the COMMIT: the new name and revision, nothing published yet.
    expect(mine).toEqual([{ agentId: id, revision, name: 'Prepared', committed: true }]);
    expect(handed.filter((h) => h.agentId === id)).toEqual([{ agentId: id, revision, prepared: mine[0] }]);
    expect(heard).toContain(`${id}@${revision}`);
  });

  it('prepares nothing for a change that rolls back, and tells no listener', async () => {
    const id = await anAgent();
    await expect(
      writer.change({ agentId: id, actor: 'user:alice', summary: 'fails' }, async (tx) => {
        await tx.agent.update({ where: { id }, data: { name: 'never' } });
        throw new Error('the change itself failed');
      }),
    ).rejects.toThrow('the change itself failed');
    expect(prepared.filter((p) => p.agentId === id)).toEqual([]);
    expect(handed.filter((h) => h.agentId === id)).toEqual([]);
  });

  it('keeps the commit when a listener cannot prepare: it is told after the commit with nothing prepared', async () => {
    const id = await anAgent();
    failingPrepares.add(id);
    const { revision } = await rename(id, 'unprepared');
    expect((await agentRow(id)).revision).toBe(revision);
    expect(handed.filter((h) => h.agentId === id)).toEqual([{ agentId: id, revision, prepared: undefined }]);
    expect(heard).toContain(`${id}@${revision}`);
  });

  it('each of concurrent changes prepares the snapshot of its own revision', async () => {
    const id = await anAgent();
    await Promise.all(Array.from({ length: 4 }, (_, i) => rename(id, `concurrent ${i}`)));
    const mine = prepared.filter((p) => p.agentId === id).sort((a, b) => a.revision - b.revision);
    expect(mine.map((p) => p.revision)).toEqual([2, 3, 4, 5]);
    // Each snapshot holds its own change's name: nothing of a later change leaked into it.
    const names = (await prisma.auditEvent.findMany({ where: { agentId: id }, orderBy: { revision: 'asc' } })).map(
      (e) => (e.after as { name: string }).name,
    );
    expect(mine.map((p) => p.name)).toEqual(names);
  });

  it("judges the change's check on the new revision's snapshot in the transaction: a refusal rolls everything back", async () => {
    const id = await anAgent();
    const seen: { revision: number; name: string }[] = [];
    const change = (name: string) =>
      writer.change(
        {
          agentId: id,
          actor: 'user:alice',
          summary: `rename to ${name}`,
          check: (snapshot) => {
            seen.push({ revision: snapshot.revision, name: snapshot.agent.name });
            if (snapshot.agent.name.includes('forbidden')) throw new Error(`refused: ${snapshot.agent.name}`);
          },
        },
        async (tx) => {
          await tx.agent.update({ where: { id }, data: { name } });
          return { result: name, audit: [{ action: 'agent.update', targetType: 'agent', targetId: id, after: { name } }] };
        },
      );
    await expect(change('a forbidden name')).rejects.toThrow('refused: a forbidden name');
    expect(await agentRow(id)).toMatchObject({ revision: 1, name: 'Finance Agent' });
    expect(await prisma.registryRevision.count({ where: { agentId: id, revision: { gt: 1 } } })).toBe(0);
    expect(await prisma.auditEvent.count({ where: { agentId: id, revision: 2 } })).toBe(0);
    expect(prepared.filter((p) => p.agentId === id)).toEqual([]);
    expect(handed.filter((h) => h.agentId === id)).toEqual([]);
    expect((await change('an allowed name')).revision).toBe(2);
    expect(seen).toEqual([
      { revision: 2, name: 'a forbidden name' },
      { revision: 2, name: 'an allowed name' },
    ]);
  });

  it('reads a consistent snapshot of the registry', async () => {
    const agent = await given.agent();
    for (const m of financeAgentExample().manifests) await given.manifest(agent, { ...m, owner: agent.teamId });
    await rename(agent.id, 'Renamed');
    const snapshot = await moduleRef.get(RegistrySnapshotRepository).snapshot(agent.id);
    expect(snapshot?.manifests.map((m) => m.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
    expect(snapshot?.revision).toBe(2);
    expect(snapshot?.agent.name).toBe('Renamed');
    expect(snapshot?.agent.protocol).toEqual({
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: true,
      versions: ['1.0'],
      webhookAllow: [],
    });
    expect(await moduleRef.get(RegistrySnapshotRepository).snapshot('nope')).toBeNull();
  });
});
