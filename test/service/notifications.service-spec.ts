/**
 * NotificationsService with its repositories, the audit writer and the notices queue on a real
 * database and Redis (service tier): tenants' endpoints for deprecation notices (the SSRF rules of
 * push apply when one is set), and redelivery of dead letters.
 */
import { randomBytes } from 'node:crypto';
import { getQueueToken } from '@nestjs/bullmq';
import type { Queue } from 'bullmq';
import { NOTICES_QUEUE } from '@cp/jobs';
import { NotificationsModule } from '../../apps/control-plane/src/notifications/notifications.module';
import { NotificationsService } from '../../apps/control-plane/src/notifications/notifications.service';
import { CommonErrorCode, InputValidationError } from '../../apps/control-plane/src/common/errors';
import { principal, serviceModule } from '../support/service-module';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('NotificationsService (service tier)', () => {
  let db: TestDatabase;
  let ctx: Awaited<ReturnType<typeof serviceModule>>;
  let sut: NotificationsService;
  let queue: Queue;
  const admin = principal(['platform-admin'], [], 'alice');

  beforeAll(async () => {
    db = await createTestDatabase('svc_notifications');
    // Loopback is allowed (as a deployment may allow its own receivers); every other private address is not.
    ctx = await serviceModule(db, [NotificationsModule], {
      REDIS_KEY_PREFIX: `svc-notices-${randomBytes(4).toString('hex')}:`,
      DEPRECATION_NOTICE_ALLOW: '127.0.0.1',
    });
    sut = ctx.get(NotificationsService);
    queue = ctx.get<Queue>(getQueueToken(NOTICES_QUEUE));
  });
  afterAll(async () => {
    await queue?.obliterate({ force: true });
    await ctx?.close();
    await db?.drop();
  });

  const endpointOf = (tenantId: string) => ctx.given.prisma.notificationEndpoint.findUnique({ where: { tenantId } });
  const auditOf = (tenantId: string) =>
    ctx.given.prisma.auditEvent.findMany({ where: { targetId: tenantId, targetType: 'tenant' }, orderBy: { id: 'asc' } });

  it('sets an endpoint with a fresh secret shown once, rotates it when set again, and never audits the secret', async () => {
    const tenant = await ctx.given.tenant();
    const first = await sut.setEndpoint(admin, { tenantId: tenant.id, url: 'http://127.0.0.1:9/hooks/a' });
    expect(first).toMatchObject({ tenantId: tenant.id, url: 'http://127.0.0.1:9/hooks/a', createdBy: 'alice' });
    expect(first.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    const second = await sut.setEndpoint(admin, { tenantId: tenant.id, url: 'http://127.0.0.1:9/hooks/b' });
    expect(second.secret).not.toBe(first.secret);
    expect(await endpointOf(tenant.id)).toMatchObject({ url: 'http://127.0.0.1:9/hooks/b', secret: second.secret });

    expect((await sut.listEndpoints(500)).find((e) => e.tenantId === tenant.id)).not.toHaveProperty('secret');
    const audit = await auditOf(tenant.id);
    expect(audit.map((a) => a.action)).toEqual(['notification-endpoint.set', 'notification-endpoint.set']);
    expect(JSON.stringify(audit.map((a) => [a.before, a.after]))).not.toContain('whsec_');
    expect(audit[1].after).toEqual({ url: 'http://127.0.0.1:9/hooks/b' });
  });

  it.each([
    ['a private address', 'http://10.1.2.3/hook'],
    ['the cloud metadata address', 'http://169.254.169.254/latest/meta-data'],
    ['a scheme other than http(s)', 'ftp://127.0.0.1/hook'],
    ['something that is not a URL', 'not a url'],
    ['a name that does not resolve', 'https://hooks.does-not-exist.invalid/hook'],
  ])('refuses %s, naming $.url, and leaves the current endpoint as it was', async (_what, url) => {
    const tenant = await ctx.given.tenant();
    const current = await sut.setEndpoint(admin, { tenantId: tenant.id, url: 'http://127.0.0.1:9/ok' });
    const error = await sut.setEndpoint(admin, { tenantId: tenant.id, url }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputValidationError);
    expect((error as InputValidationError).validationErrors.map((i) => i.path)).toEqual(['$.url']);
    expect(await endpointOf(tenant.id)).toMatchObject({ url: 'http://127.0.0.1:9/ok', secret: current.secret });
    expect(await auditOf(tenant.id)).toHaveLength(1);
  });

  it('answers NOT_FOUND for an unknown tenant, refuses a huge tenant id by name, and writes nothing', async () => {
    await expect(sut.setEndpoint(admin, { tenantId: 'no-such-tenant', url: 'http://127.0.0.1:9/x' })).rejects.toMatchObject({
      code: CommonErrorCode.NotFound,
      message: 'tenant "no-such-tenant" not found',
    });
    const huge = await sut.setEndpoint(admin, { tenantId: 't'.repeat(10_000), url: 'http://127.0.0.1:9/x' }).catch((e: unknown) => e);
    expect((huge as InputValidationError).validationErrors.map((i) => i.path)).toEqual(['$.tenantId']);
    expect(await ctx.given.prisma.notificationEndpoint.count({ where: { tenantId: { in: ['no-such-tenant', 't'.repeat(10_000)] } } })).toBe(
      0,
    );
  });

  it('deletes an endpoint once (audited), and answers NOT_FOUND the second time', async () => {
    const tenant = await ctx.given.tenant();
    await sut.setEndpoint(admin, { tenantId: tenant.id, url: 'http://127.0.0.1:9/x' });
    expect(await sut.deleteEndpoint(admin, tenant.id)).toMatchObject({ tenantId: tenant.id, url: 'http://127.0.0.1:9/x' });
    expect(await endpointOf(tenant.id)).toBeNull();
    await expect(sut.deleteEndpoint(admin, tenant.id)).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
    expect((await auditOf(tenant.id)).map((a) => a.action)).toEqual(['notification-endpoint.set', 'notification-endpoint.delete']);
  });

  it('redelivers a dead notice (pending again, attempts reset, a job queued) and refuses one that is not dead, naming $.id', async () => {
    const tenant = await ctx.given.tenant();
    const agent = await ctx.given.agent();
    const dead = await ctx.given.notice({ tenantId: tenant.id, agentId: agent.id, capabilityId: 'cap-a', status: 'dead' });
    const delivered = await ctx.given.notice({ tenantId: tenant.id, agentId: agent.id, capabilityId: 'cap-b', status: 'delivered' });

    expect(await sut.redeliver(dead.id)).toMatchObject({ id: dead.id, status: 'pending', attempts: 0 });
    expect(await queue.getJob(dead.id)).toMatchObject({ id: dead.id });

    const error = await sut.redeliver(delivered.id).catch((e: unknown) => e);
    expect((error as InputValidationError).validationErrors).toEqual([
      { path: '$.id', message: `notice ${delivered.id} is delivered: only a dead notice is redelivered` },
    ]);
    expect(await ctx.given.prisma.deprecationNotice.findUnique({ where: { id: delivered.id } })).toMatchObject({ status: 'delivered' });
    expect(await queue.getJob(delivered.id)).toBeUndefined();
    await expect(sut.redeliver('no-such-notice')).rejects.toMatchObject({ code: CommonErrorCode.NotFound });
  });

  it('lists notices by status and tenant, and refuses a limit outside 1..500 by name', async () => {
    const [tenant, other] = [await ctx.given.tenant(), await ctx.given.tenant()];
    const agent = await ctx.given.agent();
    const mine = await ctx.given.notice({ tenantId: tenant.id, agentId: agent.id, capabilityId: 'cap-x', status: 'dead' });
    await ctx.given.notice({ tenantId: other.id, agentId: agent.id, capabilityId: 'cap-x', status: 'dead' });
    expect((await sut.listNotices('dead', tenant.id, 50)).map((n) => n.id)).toEqual([mine.id]);
    for (const limit of [0, 501, 1.5]) {
      const error = await sut.listNotices(null, null, limit).catch((e: unknown) => e);
      expect((error as InputValidationError).validationErrors.map((i) => i.path)).toEqual(['$.limit']);
    }
  });
});
