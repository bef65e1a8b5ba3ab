import { UseGuards } from '@nestjs/common';
import { Args, Int, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { Roles } from '../auth/roles.decorator';
import {
  DeprecationNoticeModel,
  NoticeStatusModel,
  NotificationEndpointInput,
  NotificationEndpointModel,
  NotificationEndpointWithSecretModel,
} from './dto/notifications.model';
import { NotificationsService } from './notifications.service';

/** Tenants' notice endpoints and the notices (platform-wide, like tenants: platform admins change, viewers read). */
@Resolver(() => DeprecationNoticeModel)
@UseGuards(AdminGuard)
export class NotificationsResolver {
  constructor(private readonly service: NotificationsService) {}

  @Query(() => [NotificationEndpointModel], { description: 'Notification endpoints by tenant (secrets are never shown again).' })
  @Roles('platform-admin', 'viewer')
  notificationEndpoints(@Args('limit', { type: () => Int, defaultValue: 100 }) limit: number) {
    return this.service.listEndpoints(limit);
  }

  @Mutation(() => NotificationEndpointWithSecretModel, {
    description: "Sets a tenant's webhook for deprecation notices (replacing any, with a new secret shown once).",
  })
  @Roles('platform-admin')
  setNotificationEndpoint(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: NotificationEndpointInput) {
    return this.service.setEndpoint(principal, input);
  }

  @Mutation(() => NotificationEndpointModel)
  @Roles('platform-admin')
  deleteNotificationEndpoint(@CurrentPrincipal() principal: AdminPrincipal, @Args('tenantId') tenantId: string) {
    return this.service.deleteEndpoint(principal, tenantId);
  }

  @Query(() => [DeprecationNoticeModel], {
    description: 'Deprecation notices, newest first; status: dead is the dead-letter view (retries exhausted).',
  })
  @Roles('platform-admin', 'viewer')
  deprecationNotices(
    @Args('status', { type: () => NoticeStatusModel, nullable: true }) status?: NoticeStatusModel | null,
    @Args('tenantId', { type: () => String, nullable: true }) tenantId?: string | null,
    @Args('limit', { type: () => Int, defaultValue: 100 }) limit: number = 100,
  ) {
    return this.service.listNotices(status ?? null, tenantId ?? null, limit);
  }

  @Mutation(() => DeprecationNoticeModel, { description: 'Queues a dead-lettered notice again (after its endpoint was fixed).' })
  @Roles('platform-admin')
  redeliverDeprecationNotice(@Args('id') id: string) {
    return this.service.redeliver(id);
  }
}
