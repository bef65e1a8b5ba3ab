import { Module } from '@nestjs/common';
import { RegistrySnapshotRepository } from './registry-snapshot.repository';
import { RegistryWriter } from './registry-writer';

/** Apps that change the registry provide REVISION_LISTENERS (the sync publisher) in their own module. */
@Module({ providers: [RegistryWriter, RegistrySnapshotRepository], exports: [RegistryWriter, RegistrySnapshotRepository] })
export class RegistryModule {}
