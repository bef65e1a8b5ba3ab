import { Module } from '@nestjs/common';
import { NodeAuthModule } from '../node-auth/node-auth.module';
import { NodeInventoryModule } from '../node-inventory/node-inventory.module';
import { NodeApiController } from './node-api.controller';
import { NodeApiService } from './node-api.service';
import { JwksRoute } from './jwks.route';
import { CardSignaturesService } from './card-signatures.service';
import { NodeBundleRoute } from './node-bundle.route';
import { NodeRepository } from './node.repository';
import { AckWriter } from './ack-writer';
import { revisionReadsProvider, RevisionReadsCloser } from './revision-reads.provider';

/**
 * The API agent nodes sync from (/node/v1) and the JWKS they (and tools, and A2A clients) verify
 * signatures with (/.well-known/jwks.json). Needs SyncPublisherModule (BundleCache, SigningKeys), DbModule and RedisModule.
 */
@Module({
  imports: [NodeAuthModule, NodeInventoryModule],
  controllers: [NodeApiController],
  providers: [
    NodeApiService,
    NodeRepository,
    AckWriter,
    revisionReadsProvider,
    RevisionReadsCloser,
    NodeBundleRoute,
    JwksRoute,
    CardSignaturesService,
  ],
  exports: [CardSignaturesService],
})
export class NodeApiModule {}
