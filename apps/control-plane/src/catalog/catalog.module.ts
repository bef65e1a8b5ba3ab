import { Module } from '@nestjs/common';
import { RegistrySnapshotRepository } from '@cp/db';
import { CatalogRepository } from './catalog.repository';
import { CatalogRoute } from './catalog.route';
import { CatalogService } from './catalog.service';

/** The fleet's AI Catalog at /.well-known/ai-catalog.json (docs/catalog.md, ADR 0250). Needs DbModule and SyncPublisherModule (SigningKeys). */
@Module({ providers: [RegistrySnapshotRepository, CatalogRepository, CatalogService, CatalogRoute], exports: [CatalogService] })
export class CatalogModule {}
