import { Module } from '@nestjs/common';
import { NodeApiController } from './node-api.controller';
import { NodeApiService } from './node-api.service';
import { NodeAuthenticator } from './node-authenticator';
import { NodeBundleRoute } from './node-bundle.route';
import { NodeRepository } from './node.repository';
import { NodeTokenGuard } from './node-token.guard';

/** The API agent nodes sync from (/node/v1). Needs SyncPublisherModule (BundleCache), DbModule and RedisModule. */
@Module({
  controllers: [NodeApiController],
  providers: [NodeAuthenticator, NodeTokenGuard, NodeApiService, NodeRepository, NodeBundleRoute],
})
export class NodeApiModule {}
