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
  seedWhenEmpty,
} from '@cp/db';
import { testConfig } from '../support/config';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const heard: string[] = [];
let failListener = false;

@Global()
@Module({
  providers: [
    {
      provide: REVISION_LISTENERS,
      useValue: [
        {
          revisionCommitted: async (agentId: string, revision: number) => {
            if (failListener) throw new Error('redis down');
            heard.push(`${agentId}@${revision}`);
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

  beforeAll(async () => {
    db = await createTestDatabase('registry_writer');
    moduleRef = await Test.createTestingModule({ imports: [AppConfigModule, DbModule, ListenersModule, RegistryModule] })
      .overrideProvider(AppConfigToken)
      .useValue(testConfig({ DATABASE_URL: db.url }))
      .compile();
    writer = moduleRef.get(RegistryWriter);
    prisma = moduleRef.get(PrismaService);
    await seedWhenEmpty(prisma);
  });
  afterAll(async () => {
    await moduleRef.close();
    await db.drop();
  });

  const rename = (name: string, expectedRevision?: number) =>
    writer.change({ agentId: 'finance-agent', expectedRevision, actor: 'user:alice', summary: `rename to ${name}` }, async (tx) => {
      const before = await tx.agent.findUniqueOrThrow({ where: { id: 'finance-agent' }, select: { name: true } });
      await tx.agent.update({ where: { id: 'finance-agent' }, data: { name } });
      return { result: name, audit: [{ action: 'agent.update', targetType: 'agent', targetId: 'finance-agent', before, after: { name } }] };
    });

  it('bumps the revision, records the outbox row and the audit event in one transaction, then tells listeners', async () => {
    const { revision } = await rename('Finance Agent 2', 1);
    expect(revision).toBe(2);
    expect(heard).toEqual(['finance-agent@2']);
    const outbox = await prisma.registryRevision.findUniqueOrThrow({
      where: { agentId_revision: { agentId: 'finance-agent', revision: 2 } },
    });
    expect(outbox).toMatchObject({ actor: 'user:alice', publishedAt: null });
    const audit = await prisma.auditEvent.findFirstOrThrow({ where: { revision: 2 } });
    expect(audit).toMatchObject({
      actor: 'user:alice',
      action: 'agent.update',
      agentId: 'finance-agent',
      before: { name: 'Finance Agent' },
      after: { name: 'Finance Agent 2' },
    });
  });

  it('refuses a stale expectedRevision and writes nothing', async () => {
    const before = await prisma.auditEvent.count();
    const error = await rename('Stale', 1).catch((e: RegistryError) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect((error as RegistryError).code).toBe(RegistryErrorCode.StaleRevision);
    expect((error as RegistryError).message).toMatch(/is at revision 2, not 1/);
    expect(await prisma.agent.findUniqueOrThrow({ where: { id: 'finance-agent' } })).toMatchObject({
      name: 'Finance Agent 2',
      revision: 2,
    });
    expect(await prisma.auditEvent.count()).toBe(before);
    expect(await prisma.registryRevision.count({ where: { agentId: 'finance-agent' } })).toBe(2);
  });

  it('answers AGENT_NOT_FOUND for an unknown agent', async () => {
    const error = await writer
      .change({ agentId: 'nope', actor: 'a', summary: 's' }, async () => ({ result: 1, audit: [] }))
      .catch((e: RegistryError) => e);
    expect((error as RegistryError).code).toBe(RegistryErrorCode.AgentNotFound);
  });

  it('rolls back everything when the change itself fails', async () => {
    const revisionBefore = (await prisma.agent.findUniqueOrThrow({ where: { id: 'finance-agent' } })).revision;
    await expect(
      writer.change({ agentId: 'finance-agent', actor: 'a', summary: 's' }, async (tx) => {
        await tx.agent.update({ where: { id: 'finance-agent' }, data: { name: 'half' } });
        throw new Error('validation failed midway');
      }),
    ).rejects.toThrow('validation failed midway');
    expect(await prisma.agent.findUniqueOrThrow({ where: { id: 'finance-agent' } })).toMatchObject({
      name: 'Finance Agent 2',
      revision: revisionBefore,
    });
  });

  it('serializes concurrent changes: revisions are gapless and each expectedRevision wins once', async () => {
    const start = (await prisma.agent.findUniqueOrThrow({ where: { id: 'finance-agent' } })).revision;
    const results = await Promise.allSettled(Array.from({ length: 5 }, (_, i) => rename(`racer ${i}`, start)));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    await Promise.all(Array.from({ length: 5 }, (_, i) => rename(`free ${i}`)));
    const revisions = (await prisma.registryRevision.findMany({ where: { agentId: 'finance-agent' }, orderBy: { revision: 'asc' } })).map(
      (r) => r.revision,
    );
    expect(revisions).toEqual(Array.from({ length: start + 6 }, (_, i) => i + 1));
  });

  it('keeps the commit when a listener fails (the outbox row stays unpublished)', async () => {
    failListener = true;
    const { revision } = await rename('while redis is down');
    failListener = false;
    expect((await prisma.agent.findUniqueOrThrow({ where: { id: 'finance-agent' } })).revision).toBe(revision);
    expect(
      (await prisma.registryRevision.findUniqueOrThrow({ where: { agentId_revision: { agentId: 'finance-agent', revision } } }))
        .publishedAt,
    ).toBeNull();
  });

  it('reads a consistent snapshot of the registry', async () => {
    const snapshot = await moduleRef.get(RegistrySnapshotRepository).snapshot('finance-agent');
    expect(snapshot?.manifests.map((m) => m.id)).toEqual(['invoice-lookup', 'reconcile-invoice']);
    expect(snapshot?.revision).toBe((await prisma.agent.findUniqueOrThrow({ where: { id: 'finance-agent' } })).revision);
    expect(snapshot?.agent.protocol).toEqual({ streaming: true, pushNotifications: false, extendedAgentCard: true });
    expect(await moduleRef.get(RegistrySnapshotRepository).snapshot('nope')).toBeNull();
  });
});
