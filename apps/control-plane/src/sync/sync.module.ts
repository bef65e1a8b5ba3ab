import { Module } from '@nestjs/common';
import { SyncPublisherModule } from '@cp/sync';
import { FleetModule } from '../fleet/fleet.module';
import { NodeApiModule } from '../node-api/node-api.module';

/**
 * Everything the control plane does for agent nodes: announces committed revisions
 * (SyncPublisherModule from @cp/sync, shared with the worker), serves bundles and acks
 * (/node/v1) and shows the fleet (GraphQL).
 */
@Module({ imports: [SyncPublisherModule, NodeApiModule, FleetModule] })
export class SyncModule {}
