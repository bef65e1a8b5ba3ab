import { UseGuards } from '@nestjs/common';
import { Args, Info, Mutation, Query, Resolver } from '@nestjs/graphql';
import type { GraphQLResolveInfo } from 'graphql';
import type { AdminPrincipal } from '@cp/auth';
import { AdminGuard } from '../auth/admin.guard';
import { CurrentPrincipal } from '../auth/current-principal.decorator';
import { PageInput } from '../common/graphql/pagination';
import { ApplyManifestsService } from './apply-manifests.service';
import {
  ApplyManifestsInput,
  DeprecateInput,
  LifecycleInput,
  ManifestDocumentInput,
  ManifestFilter,
  SetSunsetInput,
} from './dto/manifest.input';
import { setPrefetched } from '../graphql/prefetched-fields';
import { selectedFieldNodes, selectedFields } from '../graphql/selected-fields';
import { manifestListProjection, toManifestModel } from './dto/manifest.mapper';
import { ApplyPlanModel, ManifestChangeResult, ManifestConnection, ManifestModel } from './dto/manifest.model';
import { ManifestChangesService } from './manifest-changes.service';
import { ManifestsService } from './manifests.service';
import type { ManifestRecord } from './manifests.repository';

const result = (r: { manifest: ManifestRecord; revision: number }): ManifestChangeResult => ({
  manifest: toManifestModel(r.manifest),
  revision: r.revision,
});

@Resolver(() => ManifestModel)
@UseGuards(AdminGuard)
export class ManifestsResolver {
  constructor(
    private readonly reads: ManifestsService,
    private readonly changes: ManifestChangesService,
    private readonly applier: ApplyManifestsService,
  ) {}

  @Query(() => ManifestModel)
  async manifest(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Args('agentId') agentId: string,
    @Args('capabilityId') capabilityId: string,
  ): Promise<ManifestModel> {
    return toManifestModel(await this.reads.get(principal, agentId, capabilityId));
  }

  @Query(() => ManifestConnection, { description: 'Manifests you may read, ordered by (agentId, id).' })
  async manifests(
    @CurrentPrincipal() principal: AdminPrincipal,
    @Info() info: GraphQLResolveInfo,
    @Args('filter', { type: () => ManifestFilter, nullable: true }) filter?: ManifestFilter,
    @Args('page', { type: () => PageInput, nullable: true }) page?: PageInput,
  ) {
    const projection = manifestListProjection(selectedFields(info, ['nodes']));
    // `usage` without a window: summed in the page's own statement (ADR 0340), read synchronously by its field.
    const usage = selectedFieldNodes(info, ['nodes']).some((field) => field.name.value === 'usage' && !field.arguments?.length);
    const list = await this.reads.list(principal, filter ?? {}, page, projection.columns, usage);
    const nodes = list.nodes.map(projection.toModel);
    if (usage) nodes.forEach((node, i) => setPrefetched(node, 'usage', list.nodes[i].usage));
    return { ...list, nodes };
  }

  @Mutation(() => ManifestChangeResult, { description: 'Adds one manifest document to an agent.' })
  async createManifest(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: ManifestDocumentInput) {
    return result(await this.changes.create(principal, input));
  }

  @Mutation(() => ManifestChangeResult, { description: 'Replaces one manifest with the given document (same id).' })
  async updateManifest(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: ManifestDocumentInput) {
    return result(await this.changes.update(principal, input));
  }

  @Mutation(() => ApplyPlanModel, { description: "Declarative apply of an agent's whole manifest set; dryRun (default) only plans." })
  async applyManifests(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: ApplyManifestsInput): Promise<ApplyPlanModel> {
    return this.applier.apply(principal, input);
  }

  @Mutation(() => ManifestChangeResult, { description: 'preview → ga.' })
  async promoteManifest(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: LifecycleInput) {
    return result(await this.changes.promote(principal, input));
  }

  @Mutation(() => ManifestChangeResult, { description: 'ga → deprecated, with a replacement or a reason.' })
  async deprecateManifest(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: DeprecateInput) {
    return result(await this.changes.deprecate(principal, input));
  }

  @Mutation(() => ManifestChangeResult, { description: 'deprecated or preview → removed (the id is never reused).' })
  async removeManifest(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: LifecycleInput) {
    return result(await this.changes.remove(principal, input));
  }

  @Mutation(() => ManifestChangeResult, {
    description: 'Announces, moves or withdraws (null) the removal date of a deprecated capability; retirement waits for it.',
  })
  async setSunset(@CurrentPrincipal() principal: AdminPrincipal, @Args('input') input: SetSunsetInput) {
    return result(await this.changes.setSunset(principal, input));
  }
}
