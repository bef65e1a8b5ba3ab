/* eslint-disable */
import * as types from './graphql';
import type { TypedDocumentNode as DocumentNode } from '@graphql-typed-document-node/core';

/**
 * Map of all GraphQL operations in the project.
 *
 * This map has several performance disadvantages:
 * 1. It is not tree-shakeable, so it will include all operations in the project.
 * 2. It is not minifiable, so the string of a GraphQL query will be multiple times inside the bundle.
 * 3. It does not support dead code elimination, so it will add unused operations.
 *
 * Therefore it is highly recommended to use the babel or swc plugin for production.
 * Learn more about it here: https://the-guild.dev/graphql/codegen/plugins/presets/preset-client#reducing-bundle-size
 */
type Documents = {
    "\n  query Directory {\n    teams(page: { first: 100 }) {\n      nodes {\n        id\n        name\n        createdAt\n      }\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n        createdAt\n      }\n    }\n    scopes(page: { first: 100 }) {\n      nodes {\n        name\n        description\n        createdAt\n      }\n    }\n  }\n": typeof types.DirectoryDocument,
    "\n  mutation CreateTeam($input: TeamInput!) {\n    createTeam(input: $input) {\n      id\n      name\n    }\n  }\n": typeof types.CreateTeamDocument,
    "\n  mutation RenameTeam($input: TeamInput!) {\n    renameTeam(input: $input) {\n      id\n      name\n    }\n  }\n": typeof types.RenameTeamDocument,
    "\n  mutation CreateTenant($input: TenantInput!) {\n    createTenant(input: $input) {\n      id\n      name\n    }\n  }\n": typeof types.CreateTenantDocument,
    "\n  mutation UpdateTenant($input: TenantInput!) {\n    updateTenant(input: $input) {\n      id\n      name\n    }\n  }\n": typeof types.UpdateTenantDocument,
    "\n  mutation DeleteTenant($id: String!) {\n    deleteTenant(id: $id) {\n      id\n    }\n  }\n": typeof types.DeleteTenantDocument,
    "\n  mutation CreateScope($input: ScopeInput!) {\n    createScope(input: $input) {\n      name\n      description\n    }\n  }\n": typeof types.CreateScopeDocument,
    "\n  mutation UpdateScope($input: ScopeInput!) {\n    updateScope(input: $input) {\n      name\n      description\n    }\n  }\n": typeof types.UpdateScopeDocument,
    "\n  mutation DeleteScope($name: String!) {\n    deleteScope(name: $name) {\n      name\n    }\n  }\n": typeof types.DeleteScopeDocument,
    "\n  query AgentSettings($agentId: String!) {\n    agent(id: $agentId) {\n      id\n      name\n      description\n      version\n      teamId\n      revision\n      documentationUrl\n      iconUrl\n      protocol {\n        versions\n        streaming\n        pushNotifications\n        extendedAgentCard\n        upstreamAllow\n        webhookAllow\n      }\n    }\n    previewOptIns(agentId: $agentId) {\n      tenantId\n      createdAt\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n": typeof types.AgentSettingsDocument,
    "\n  mutation CreateAgent($input: CreateAgentInput!) {\n    createAgent(input: $input) {\n      id\n      revision\n    }\n  }\n": typeof types.CreateAgentDocument,
    "\n  mutation UpdateAgent($input: UpdateAgentInput!) {\n    updateAgent(input: $input) {\n      id\n      revision\n    }\n  }\n": typeof types.UpdateAgentDocument,
    "\n  mutation CreatePreviewOptIn($input: PreviewOptInInput!) {\n    createPreviewOptIn(input: $input) {\n      revision\n      optIn {\n        tenantId\n      }\n    }\n  }\n": typeof types.CreatePreviewOptInDocument,
    "\n  mutation DeletePreviewOptIn($input: PreviewOptInInput!) {\n    deletePreviewOptIn(input: $input) {\n      revision\n      optIn {\n        tenantId\n      }\n    }\n  }\n": typeof types.DeletePreviewOptInDocument,
    "\n  query ChangeRequests($filter: ChangeRequestFilter, $page: PageInput) {\n    changeRequests(filter: $filter, page: $page) {\n      nodes {\n        id\n        agentId\n        baseRevision\n        status\n        author\n        kinds\n        changes {\n          kind\n          capabilityId\n          detail\n        }\n        plan {\n          added\n          changed\n          deprecated\n          removed\n        }\n        settings {\n          fields\n          before\n          after\n        }\n        breakGlass\n        breakGlassReason\n        decidedBy\n        decisionComment\n        appliedRevision\n        createdAt\n        canApprove\n        cannotApproveReason\n      }\n    }\n    approvalPolicy {\n      kinds\n      isDefault\n    }\n  }\n": typeof types.ChangeRequestsDocument,
    "\n  mutation ApproveChangeRequest($input: DecideChangeRequestInput!) {\n    approveChangeRequest(input: $input) {\n      id\n      status\n      appliedRevision\n    }\n  }\n": typeof types.ApproveChangeRequestDocument,
    "\n  mutation RejectChangeRequest($input: DecideChangeRequestInput!) {\n    rejectChangeRequest(input: $input) {\n      id\n      status\n    }\n  }\n": typeof types.RejectChangeRequestDocument,
    "\n  query Me {\n    me {\n      subject\n      roles\n      teams\n    }\n  }\n": typeof types.MeDocument,
    "\n  query Agents($filter: AgentFilter, $page: PageInput) {\n    agents(filter: $filter, page: $page) {\n      nodes {\n        id\n        name\n        description\n        teamId\n        revision\n        version\n        updatedAt\n        nodes {\n          nodeId\n          appliedRevision\n          lag\n          live\n          lastSeenAt\n          lastError\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.AgentsDocument,
    "\n  query Teams {\n    teams(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n": typeof types.TeamsDocument,
    "\n  query Callers {\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n    scopes(page: { first: 100 }) {\n      nodes {\n        name\n      }\n    }\n  }\n": typeof types.CallersDocument,
    "\n  query Manifests($agentId: String!) {\n    agent(id: $agentId) {\n      id\n      name\n      teamId\n      revision\n    }\n    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {\n      nodes {\n        id\n        state\n        visibility\n        requiresScopes\n        tenants\n        allTenants\n        owner\n        replacedBy\n        deprecatedAt\n        deprecationReason\n        sunsetAt\n        document\n        skill {\n          name\n        }\n      }\n    }\n  }\n": typeof types.ManifestsDocument,
    "\n  mutation ApplyManifests($input: ApplyManifestsInput!) {\n    applyManifests(input: $input) {\n      dryRun\n      applied\n      revision\n      breaking\n      added\n      removed\n      deprecated\n      unchanged\n      changed {\n        id\n        fields\n        values {\n          field\n          before\n          after\n        }\n      }\n      leaks {\n        skillId\n        field\n        text\n      }\n      publicCardDiff {\n        kind\n        skillId\n        extensionUri\n        detail\n        breaking\n      }\n      approvalRequired {\n        kind\n        capabilityId\n        detail\n      }\n      changeRequest {\n        id\n        status\n        baseRevision\n      }\n    }\n  }\n": typeof types.ApplyManifestsDocument,
    "\n  mutation UpdateManifest($input: ManifestDocumentInput!) {\n    updateManifest(input: $input) {\n      revision\n      manifest {\n        id\n        state\n      }\n    }\n  }\n": typeof types.UpdateManifestDocument,
    "\n  mutation Promote($input: LifecycleInput!) {\n    promoteManifest(input: $input) {\n      revision\n    }\n  }\n": typeof types.PromoteDocument,
    "\n  mutation Deprecate($input: DeprecateInput!) {\n    deprecateManifest(input: $input) {\n      revision\n    }\n  }\n": typeof types.DeprecateDocument,
    "\n  mutation Remove($input: LifecycleInput!) {\n    removeManifest(input: $input) {\n      revision\n    }\n  }\n": typeof types.RemoveDocument,
    "\n  query CallerView($agentId: String!, $as: CallerInput) {\n    publicCard(agentId: $agentId) {\n      revision\n      etag\n      card\n    }\n    routerIndex(agentId: $agentId, as: $as) {\n      revision\n      value\n    }\n    executionPolicy(agentId: $agentId, as: $as) {\n      revision\n      value\n    }\n    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {\n      nodes {\n        id\n        state\n        visibility\n      }\n    }\n  }\n": typeof types.CallerViewDocument,
    "\n  query ExtendedCard($agentId: String!, $as: CallerInput!) {\n    extendedCard(agentId: $agentId, as: $as) {\n      revision\n      etag\n      card\n    }\n  }\n": typeof types.ExtendedCardDocument,
    "\n  query Explain($agentId: String!, $as: CallerInput, $capabilityId: String!) {\n    explainVisibility(agentId: $agentId, as: $as, capabilityId: $capabilityId) {\n      agentId\n      capabilityId\n      revision\n      inPublicCard\n      inExtendedCard\n      routable\n      rule\n      reason\n    }\n  }\n": typeof types.ExplainDocument,
    "\n  query RouteTest($input: RouteTestInput!) {\n    routeTest(input: $input) {\n      revision\n      results {\n        index\n        text\n        expect\n        got\n        confidence\n        correct\n        wrong\n        layer\n        reason\n        candidates {\n          id\n          score\n        }\n        indexSize\n      }\n    }\n  }\n": typeof types.RouteTestDocument,
    "\n  query Fleet($agentId: ID!) {\n    fleet(agentId: $agentId) {\n      agentId\n      currentRevision\n      upToDate\n      nodes {\n        nodeId\n        hostname\n        appliedRevision\n        lag\n        live\n        lastSeenAt\n        lastError\n        lastErrorAt\n        unservable\n        warnings\n      }\n    }\n  }\n": typeof types.FleetDocument,
    "\n  query Usage($agentId: String!, $filter: UsageFilter!, $page: PageInput) {\n    usage(filter: $filter, page: $page) {\n      nodes {\n        day\n        capabilityId\n        tenantId\n        calls\n        lastCallAt\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n    retirementPreview(agentId: $agentId) {\n      asOf\n      retire {\n        capabilityId\n        because\n      }\n      skipped {\n        capabilityId\n        reasons {\n          code\n          message\n          calls\n          lastCallAt\n          eligibleAt\n        }\n      }\n    }\n  }\n": typeof types.UsageDocument,
    "\n  query CapabilityImpact($agentId: String!, $capabilityId: String!) {\n    capabilityImpact(agentId: $agentId, capabilityId: $capabilityId) {\n      capabilityId\n      state\n      calls\n      lastCallAt\n      replacedBy\n      deprecatedAt\n      sunsetAt\n      earliestRetirementAt\n      retirementBlockers {\n        code\n        message\n      }\n      tenants {\n        tenantId\n        calls\n        lastCallAt\n      }\n      nodes {\n        nodeId\n        calls\n        lastCallAt\n      }\n      unknownUsage {\n        nodeId\n        from\n        until\n      }\n    }\n  }\n": typeof types.CapabilityImpactDocument,
    "\n  query Audit($filter: AuditFilter, $page: PageInput) {\n    auditEvents(filter: $filter, page: $page) {\n      nodes {\n        id\n        at\n        actor\n        action\n        targetType\n        targetId\n        agentId\n        revision\n        before\n        after\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.AuditDocument,
    "\n  query RegistryRevisions($agentId: String!, $page: PageInput) {\n    registryRevisions(agentId: $agentId, page: $page) {\n      nodes {\n        revision\n        actor\n        summary\n        createdAt\n        capabilities {\n          capabilityId\n          action\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": typeof types.RegistryRevisionsDocument,
    "\n  query ManifestsAtRevision($agentId: String!, $revision: Int!) {\n    manifestsAtRevision(agentId: $agentId, revision: $revision) {\n      revision\n      currentRevision\n      manifests\n    }\n  }\n": typeof types.ManifestsAtRevisionDocument,
    "\n  query ApprovalPolicy {\n    approvalPolicy {\n      kinds\n      isDefault\n      updatedBy\n      updatedAt\n    }\n  }\n": typeof types.ApprovalPolicyDocument,
    "\n  mutation SetApprovalPolicy($input: SetApprovalPolicyInput!) {\n    setApprovalPolicy(input: $input) {\n      kinds\n      isDefault\n    }\n  }\n": typeof types.SetApprovalPolicyDocument,
    "\n  query PlatformSettings {\n    notificationEndpoints(limit: 100) {\n      tenantId\n      url\n      createdBy\n      updatedAt\n    }\n    deprecationNotices(status: dead, limit: 50) {\n      id\n      tenantId\n      agentId\n      capabilityId\n      event\n      attempts\n      lastError\n      createdAt\n    }\n    retirementRuns(limit: 10) {\n      id\n      status\n      trigger\n      requestedBy\n      createdAt\n      finishedAt\n      retiredCount\n      skippedCount\n      errors {\n        agentId\n        message\n      }\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n": typeof types.PlatformSettingsDocument,
    "\n  mutation SetNotificationEndpoint($input: NotificationEndpointInput!) {\n    setNotificationEndpoint(input: $input) {\n      tenantId\n      url\n      secret\n    }\n  }\n": typeof types.SetNotificationEndpointDocument,
    "\n  mutation DeleteNotificationEndpoint($tenantId: String!) {\n    deleteNotificationEndpoint(tenantId: $tenantId) {\n      tenantId\n    }\n  }\n": typeof types.DeleteNotificationEndpointDocument,
    "\n  mutation RedeliverDeprecationNotice($id: String!) {\n    redeliverDeprecationNotice(id: $id) {\n      id\n      status\n    }\n  }\n": typeof types.RedeliverDeprecationNoticeDocument,
    "\n  mutation RunRetirementNow {\n    runRetirementNow {\n      id\n      status\n    }\n  }\n": typeof types.RunRetirementNowDocument,
    "\n  query AgentOperations($agentId: String!, $budgetsOf: ID!) {\n    costBudgets(agentId: $budgetsOf) {\n      revision\n      budgets {\n        costClass\n        calls\n        windowS\n      }\n    }\n    routingClarifications(agentId: $agentId, status: \"pending\") {\n      id\n      capabilityId\n      tenant\n      text\n      count\n      lastSeenAt\n    }\n  }\n": typeof types.AgentOperationsDocument,
    "\n  mutation SetCostBudgets($input: SetCostBudgetsInput!) {\n    setCostBudgets(input: $input) {\n      revision\n    }\n  }\n": typeof types.SetCostBudgetsDocument,
    "\n  mutation SetSunset($input: SetSunsetInput!) {\n    setSunset(input: $input) {\n      revision\n    }\n  }\n": typeof types.SetSunsetDocument,
    "\n  mutation PromoteRoutingClarification($input: PromoteClarificationInput!) {\n    promoteRoutingClarification(input: $input) {\n      revision\n    }\n  }\n": typeof types.PromoteRoutingClarificationDocument,
    "\n  mutation DismissRoutingClarification($id: ID!) {\n    dismissRoutingClarification(id: $id) {\n      id\n      status\n    }\n  }\n": typeof types.DismissRoutingClarificationDocument,
    "\n  query CapabilityHealth($filter: CapabilityHealthFilter!, $page: PageInput) {\n    capabilityHealth(filter: $filter, page: $page) {\n      from\n      to\n      rows {\n        nodes {\n          capabilityId\n          tenantId\n          calls\n          ended\n          errorRate\n          refusedRate\n          p50Ms\n          p95Ms\n          outcomes {\n            completed\n            failed\n            rejected\n            canceled\n            refused\n            inputRequired\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": typeof types.CapabilityHealthDocument,
};
const documents: Documents = {
    "\n  query Directory {\n    teams(page: { first: 100 }) {\n      nodes {\n        id\n        name\n        createdAt\n      }\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n        createdAt\n      }\n    }\n    scopes(page: { first: 100 }) {\n      nodes {\n        name\n        description\n        createdAt\n      }\n    }\n  }\n": types.DirectoryDocument,
    "\n  mutation CreateTeam($input: TeamInput!) {\n    createTeam(input: $input) {\n      id\n      name\n    }\n  }\n": types.CreateTeamDocument,
    "\n  mutation RenameTeam($input: TeamInput!) {\n    renameTeam(input: $input) {\n      id\n      name\n    }\n  }\n": types.RenameTeamDocument,
    "\n  mutation CreateTenant($input: TenantInput!) {\n    createTenant(input: $input) {\n      id\n      name\n    }\n  }\n": types.CreateTenantDocument,
    "\n  mutation UpdateTenant($input: TenantInput!) {\n    updateTenant(input: $input) {\n      id\n      name\n    }\n  }\n": types.UpdateTenantDocument,
    "\n  mutation DeleteTenant($id: String!) {\n    deleteTenant(id: $id) {\n      id\n    }\n  }\n": types.DeleteTenantDocument,
    "\n  mutation CreateScope($input: ScopeInput!) {\n    createScope(input: $input) {\n      name\n      description\n    }\n  }\n": types.CreateScopeDocument,
    "\n  mutation UpdateScope($input: ScopeInput!) {\n    updateScope(input: $input) {\n      name\n      description\n    }\n  }\n": types.UpdateScopeDocument,
    "\n  mutation DeleteScope($name: String!) {\n    deleteScope(name: $name) {\n      name\n    }\n  }\n": types.DeleteScopeDocument,
    "\n  query AgentSettings($agentId: String!) {\n    agent(id: $agentId) {\n      id\n      name\n      description\n      version\n      teamId\n      revision\n      documentationUrl\n      iconUrl\n      protocol {\n        versions\n        streaming\n        pushNotifications\n        extendedAgentCard\n        upstreamAllow\n        webhookAllow\n      }\n    }\n    previewOptIns(agentId: $agentId) {\n      tenantId\n      createdAt\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n": types.AgentSettingsDocument,
    "\n  mutation CreateAgent($input: CreateAgentInput!) {\n    createAgent(input: $input) {\n      id\n      revision\n    }\n  }\n": types.CreateAgentDocument,
    "\n  mutation UpdateAgent($input: UpdateAgentInput!) {\n    updateAgent(input: $input) {\n      id\n      revision\n    }\n  }\n": types.UpdateAgentDocument,
    "\n  mutation CreatePreviewOptIn($input: PreviewOptInInput!) {\n    createPreviewOptIn(input: $input) {\n      revision\n      optIn {\n        tenantId\n      }\n    }\n  }\n": types.CreatePreviewOptInDocument,
    "\n  mutation DeletePreviewOptIn($input: PreviewOptInInput!) {\n    deletePreviewOptIn(input: $input) {\n      revision\n      optIn {\n        tenantId\n      }\n    }\n  }\n": types.DeletePreviewOptInDocument,
    "\n  query ChangeRequests($filter: ChangeRequestFilter, $page: PageInput) {\n    changeRequests(filter: $filter, page: $page) {\n      nodes {\n        id\n        agentId\n        baseRevision\n        status\n        author\n        kinds\n        changes {\n          kind\n          capabilityId\n          detail\n        }\n        plan {\n          added\n          changed\n          deprecated\n          removed\n        }\n        settings {\n          fields\n          before\n          after\n        }\n        breakGlass\n        breakGlassReason\n        decidedBy\n        decisionComment\n        appliedRevision\n        createdAt\n        canApprove\n        cannotApproveReason\n      }\n    }\n    approvalPolicy {\n      kinds\n      isDefault\n    }\n  }\n": types.ChangeRequestsDocument,
    "\n  mutation ApproveChangeRequest($input: DecideChangeRequestInput!) {\n    approveChangeRequest(input: $input) {\n      id\n      status\n      appliedRevision\n    }\n  }\n": types.ApproveChangeRequestDocument,
    "\n  mutation RejectChangeRequest($input: DecideChangeRequestInput!) {\n    rejectChangeRequest(input: $input) {\n      id\n      status\n    }\n  }\n": types.RejectChangeRequestDocument,
    "\n  query Me {\n    me {\n      subject\n      roles\n      teams\n    }\n  }\n": types.MeDocument,
    "\n  query Agents($filter: AgentFilter, $page: PageInput) {\n    agents(filter: $filter, page: $page) {\n      nodes {\n        id\n        name\n        description\n        teamId\n        revision\n        version\n        updatedAt\n        nodes {\n          nodeId\n          appliedRevision\n          lag\n          live\n          lastSeenAt\n          lastError\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.AgentsDocument,
    "\n  query Teams {\n    teams(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n": types.TeamsDocument,
    "\n  query Callers {\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n    scopes(page: { first: 100 }) {\n      nodes {\n        name\n      }\n    }\n  }\n": types.CallersDocument,
    "\n  query Manifests($agentId: String!) {\n    agent(id: $agentId) {\n      id\n      name\n      teamId\n      revision\n    }\n    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {\n      nodes {\n        id\n        state\n        visibility\n        requiresScopes\n        tenants\n        allTenants\n        owner\n        replacedBy\n        deprecatedAt\n        deprecationReason\n        sunsetAt\n        document\n        skill {\n          name\n        }\n      }\n    }\n  }\n": types.ManifestsDocument,
    "\n  mutation ApplyManifests($input: ApplyManifestsInput!) {\n    applyManifests(input: $input) {\n      dryRun\n      applied\n      revision\n      breaking\n      added\n      removed\n      deprecated\n      unchanged\n      changed {\n        id\n        fields\n        values {\n          field\n          before\n          after\n        }\n      }\n      leaks {\n        skillId\n        field\n        text\n      }\n      publicCardDiff {\n        kind\n        skillId\n        extensionUri\n        detail\n        breaking\n      }\n      approvalRequired {\n        kind\n        capabilityId\n        detail\n      }\n      changeRequest {\n        id\n        status\n        baseRevision\n      }\n    }\n  }\n": types.ApplyManifestsDocument,
    "\n  mutation UpdateManifest($input: ManifestDocumentInput!) {\n    updateManifest(input: $input) {\n      revision\n      manifest {\n        id\n        state\n      }\n    }\n  }\n": types.UpdateManifestDocument,
    "\n  mutation Promote($input: LifecycleInput!) {\n    promoteManifest(input: $input) {\n      revision\n    }\n  }\n": types.PromoteDocument,
    "\n  mutation Deprecate($input: DeprecateInput!) {\n    deprecateManifest(input: $input) {\n      revision\n    }\n  }\n": types.DeprecateDocument,
    "\n  mutation Remove($input: LifecycleInput!) {\n    removeManifest(input: $input) {\n      revision\n    }\n  }\n": types.RemoveDocument,
    "\n  query CallerView($agentId: String!, $as: CallerInput) {\n    publicCard(agentId: $agentId) {\n      revision\n      etag\n      card\n    }\n    routerIndex(agentId: $agentId, as: $as) {\n      revision\n      value\n    }\n    executionPolicy(agentId: $agentId, as: $as) {\n      revision\n      value\n    }\n    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {\n      nodes {\n        id\n        state\n        visibility\n      }\n    }\n  }\n": types.CallerViewDocument,
    "\n  query ExtendedCard($agentId: String!, $as: CallerInput!) {\n    extendedCard(agentId: $agentId, as: $as) {\n      revision\n      etag\n      card\n    }\n  }\n": types.ExtendedCardDocument,
    "\n  query Explain($agentId: String!, $as: CallerInput, $capabilityId: String!) {\n    explainVisibility(agentId: $agentId, as: $as, capabilityId: $capabilityId) {\n      agentId\n      capabilityId\n      revision\n      inPublicCard\n      inExtendedCard\n      routable\n      rule\n      reason\n    }\n  }\n": types.ExplainDocument,
    "\n  query RouteTest($input: RouteTestInput!) {\n    routeTest(input: $input) {\n      revision\n      results {\n        index\n        text\n        expect\n        got\n        confidence\n        correct\n        wrong\n        layer\n        reason\n        candidates {\n          id\n          score\n        }\n        indexSize\n      }\n    }\n  }\n": types.RouteTestDocument,
    "\n  query Fleet($agentId: ID!) {\n    fleet(agentId: $agentId) {\n      agentId\n      currentRevision\n      upToDate\n      nodes {\n        nodeId\n        hostname\n        appliedRevision\n        lag\n        live\n        lastSeenAt\n        lastError\n        lastErrorAt\n        unservable\n        warnings\n      }\n    }\n  }\n": types.FleetDocument,
    "\n  query Usage($agentId: String!, $filter: UsageFilter!, $page: PageInput) {\n    usage(filter: $filter, page: $page) {\n      nodes {\n        day\n        capabilityId\n        tenantId\n        calls\n        lastCallAt\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n    retirementPreview(agentId: $agentId) {\n      asOf\n      retire {\n        capabilityId\n        because\n      }\n      skipped {\n        capabilityId\n        reasons {\n          code\n          message\n          calls\n          lastCallAt\n          eligibleAt\n        }\n      }\n    }\n  }\n": types.UsageDocument,
    "\n  query CapabilityImpact($agentId: String!, $capabilityId: String!) {\n    capabilityImpact(agentId: $agentId, capabilityId: $capabilityId) {\n      capabilityId\n      state\n      calls\n      lastCallAt\n      replacedBy\n      deprecatedAt\n      sunsetAt\n      earliestRetirementAt\n      retirementBlockers {\n        code\n        message\n      }\n      tenants {\n        tenantId\n        calls\n        lastCallAt\n      }\n      nodes {\n        nodeId\n        calls\n        lastCallAt\n      }\n      unknownUsage {\n        nodeId\n        from\n        until\n      }\n    }\n  }\n": types.CapabilityImpactDocument,
    "\n  query Audit($filter: AuditFilter, $page: PageInput) {\n    auditEvents(filter: $filter, page: $page) {\n      nodes {\n        id\n        at\n        actor\n        action\n        targetType\n        targetId\n        agentId\n        revision\n        before\n        after\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.AuditDocument,
    "\n  query RegistryRevisions($agentId: String!, $page: PageInput) {\n    registryRevisions(agentId: $agentId, page: $page) {\n      nodes {\n        revision\n        actor\n        summary\n        createdAt\n        capabilities {\n          capabilityId\n          action\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n": types.RegistryRevisionsDocument,
    "\n  query ManifestsAtRevision($agentId: String!, $revision: Int!) {\n    manifestsAtRevision(agentId: $agentId, revision: $revision) {\n      revision\n      currentRevision\n      manifests\n    }\n  }\n": types.ManifestsAtRevisionDocument,
    "\n  query ApprovalPolicy {\n    approvalPolicy {\n      kinds\n      isDefault\n      updatedBy\n      updatedAt\n    }\n  }\n": types.ApprovalPolicyDocument,
    "\n  mutation SetApprovalPolicy($input: SetApprovalPolicyInput!) {\n    setApprovalPolicy(input: $input) {\n      kinds\n      isDefault\n    }\n  }\n": types.SetApprovalPolicyDocument,
    "\n  query PlatformSettings {\n    notificationEndpoints(limit: 100) {\n      tenantId\n      url\n      createdBy\n      updatedAt\n    }\n    deprecationNotices(status: dead, limit: 50) {\n      id\n      tenantId\n      agentId\n      capabilityId\n      event\n      attempts\n      lastError\n      createdAt\n    }\n    retirementRuns(limit: 10) {\n      id\n      status\n      trigger\n      requestedBy\n      createdAt\n      finishedAt\n      retiredCount\n      skippedCount\n      errors {\n        agentId\n        message\n      }\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n": types.PlatformSettingsDocument,
    "\n  mutation SetNotificationEndpoint($input: NotificationEndpointInput!) {\n    setNotificationEndpoint(input: $input) {\n      tenantId\n      url\n      secret\n    }\n  }\n": types.SetNotificationEndpointDocument,
    "\n  mutation DeleteNotificationEndpoint($tenantId: String!) {\n    deleteNotificationEndpoint(tenantId: $tenantId) {\n      tenantId\n    }\n  }\n": types.DeleteNotificationEndpointDocument,
    "\n  mutation RedeliverDeprecationNotice($id: String!) {\n    redeliverDeprecationNotice(id: $id) {\n      id\n      status\n    }\n  }\n": types.RedeliverDeprecationNoticeDocument,
    "\n  mutation RunRetirementNow {\n    runRetirementNow {\n      id\n      status\n    }\n  }\n": types.RunRetirementNowDocument,
    "\n  query AgentOperations($agentId: String!, $budgetsOf: ID!) {\n    costBudgets(agentId: $budgetsOf) {\n      revision\n      budgets {\n        costClass\n        calls\n        windowS\n      }\n    }\n    routingClarifications(agentId: $agentId, status: \"pending\") {\n      id\n      capabilityId\n      tenant\n      text\n      count\n      lastSeenAt\n    }\n  }\n": types.AgentOperationsDocument,
    "\n  mutation SetCostBudgets($input: SetCostBudgetsInput!) {\n    setCostBudgets(input: $input) {\n      revision\n    }\n  }\n": types.SetCostBudgetsDocument,
    "\n  mutation SetSunset($input: SetSunsetInput!) {\n    setSunset(input: $input) {\n      revision\n    }\n  }\n": types.SetSunsetDocument,
    "\n  mutation PromoteRoutingClarification($input: PromoteClarificationInput!) {\n    promoteRoutingClarification(input: $input) {\n      revision\n    }\n  }\n": types.PromoteRoutingClarificationDocument,
    "\n  mutation DismissRoutingClarification($id: ID!) {\n    dismissRoutingClarification(id: $id) {\n      id\n      status\n    }\n  }\n": types.DismissRoutingClarificationDocument,
    "\n  query CapabilityHealth($filter: CapabilityHealthFilter!, $page: PageInput) {\n    capabilityHealth(filter: $filter, page: $page) {\n      from\n      to\n      rows {\n        nodes {\n          capabilityId\n          tenantId\n          calls\n          ended\n          errorRate\n          refusedRate\n          p50Ms\n          p95Ms\n          outcomes {\n            completed\n            failed\n            rejected\n            canceled\n            refused\n            inputRequired\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n": types.CapabilityHealthDocument,
};

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 *
 *
 * @example
 * ```ts
 * const query = graphql(`query GetUser($id: ID!) { user(id: $id) { name } }`);
 * ```
 *
 * The query argument is unknown!
 * Please regenerate the types.
 */
export function graphql(source: string): unknown;

/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Directory {\n    teams(page: { first: 100 }) {\n      nodes {\n        id\n        name\n        createdAt\n      }\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n        createdAt\n      }\n    }\n    scopes(page: { first: 100 }) {\n      nodes {\n        name\n        description\n        createdAt\n      }\n    }\n  }\n"): (typeof documents)["\n  query Directory {\n    teams(page: { first: 100 }) {\n      nodes {\n        id\n        name\n        createdAt\n      }\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n        createdAt\n      }\n    }\n    scopes(page: { first: 100 }) {\n      nodes {\n        name\n        description\n        createdAt\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateTeam($input: TeamInput!) {\n    createTeam(input: $input) {\n      id\n      name\n    }\n  }\n"): (typeof documents)["\n  mutation CreateTeam($input: TeamInput!) {\n    createTeam(input: $input) {\n      id\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RenameTeam($input: TeamInput!) {\n    renameTeam(input: $input) {\n      id\n      name\n    }\n  }\n"): (typeof documents)["\n  mutation RenameTeam($input: TeamInput!) {\n    renameTeam(input: $input) {\n      id\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateTenant($input: TenantInput!) {\n    createTenant(input: $input) {\n      id\n      name\n    }\n  }\n"): (typeof documents)["\n  mutation CreateTenant($input: TenantInput!) {\n    createTenant(input: $input) {\n      id\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateTenant($input: TenantInput!) {\n    updateTenant(input: $input) {\n      id\n      name\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateTenant($input: TenantInput!) {\n    updateTenant(input: $input) {\n      id\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteTenant($id: String!) {\n    deleteTenant(id: $id) {\n      id\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteTenant($id: String!) {\n    deleteTenant(id: $id) {\n      id\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateScope($input: ScopeInput!) {\n    createScope(input: $input) {\n      name\n      description\n    }\n  }\n"): (typeof documents)["\n  mutation CreateScope($input: ScopeInput!) {\n    createScope(input: $input) {\n      name\n      description\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateScope($input: ScopeInput!) {\n    updateScope(input: $input) {\n      name\n      description\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateScope($input: ScopeInput!) {\n    updateScope(input: $input) {\n      name\n      description\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteScope($name: String!) {\n    deleteScope(name: $name) {\n      name\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteScope($name: String!) {\n    deleteScope(name: $name) {\n      name\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AgentSettings($agentId: String!) {\n    agent(id: $agentId) {\n      id\n      name\n      description\n      version\n      teamId\n      revision\n      documentationUrl\n      iconUrl\n      protocol {\n        versions\n        streaming\n        pushNotifications\n        extendedAgentCard\n        upstreamAllow\n        webhookAllow\n      }\n    }\n    previewOptIns(agentId: $agentId) {\n      tenantId\n      createdAt\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  query AgentSettings($agentId: String!) {\n    agent(id: $agentId) {\n      id\n      name\n      description\n      version\n      teamId\n      revision\n      documentationUrl\n      iconUrl\n      protocol {\n        versions\n        streaming\n        pushNotifications\n        extendedAgentCard\n        upstreamAllow\n        webhookAllow\n      }\n    }\n    previewOptIns(agentId: $agentId) {\n      tenantId\n      createdAt\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreateAgent($input: CreateAgentInput!) {\n    createAgent(input: $input) {\n      id\n      revision\n    }\n  }\n"): (typeof documents)["\n  mutation CreateAgent($input: CreateAgentInput!) {\n    createAgent(input: $input) {\n      id\n      revision\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateAgent($input: UpdateAgentInput!) {\n    updateAgent(input: $input) {\n      id\n      revision\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateAgent($input: UpdateAgentInput!) {\n    updateAgent(input: $input) {\n      id\n      revision\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation CreatePreviewOptIn($input: PreviewOptInInput!) {\n    createPreviewOptIn(input: $input) {\n      revision\n      optIn {\n        tenantId\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation CreatePreviewOptIn($input: PreviewOptInInput!) {\n    createPreviewOptIn(input: $input) {\n      revision\n      optIn {\n        tenantId\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeletePreviewOptIn($input: PreviewOptInInput!) {\n    deletePreviewOptIn(input: $input) {\n      revision\n      optIn {\n        tenantId\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation DeletePreviewOptIn($input: PreviewOptInInput!) {\n    deletePreviewOptIn(input: $input) {\n      revision\n      optIn {\n        tenantId\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ChangeRequests($filter: ChangeRequestFilter, $page: PageInput) {\n    changeRequests(filter: $filter, page: $page) {\n      nodes {\n        id\n        agentId\n        baseRevision\n        status\n        author\n        kinds\n        changes {\n          kind\n          capabilityId\n          detail\n        }\n        plan {\n          added\n          changed\n          deprecated\n          removed\n        }\n        settings {\n          fields\n          before\n          after\n        }\n        breakGlass\n        breakGlassReason\n        decidedBy\n        decisionComment\n        appliedRevision\n        createdAt\n        canApprove\n        cannotApproveReason\n      }\n    }\n    approvalPolicy {\n      kinds\n      isDefault\n    }\n  }\n"): (typeof documents)["\n  query ChangeRequests($filter: ChangeRequestFilter, $page: PageInput) {\n    changeRequests(filter: $filter, page: $page) {\n      nodes {\n        id\n        agentId\n        baseRevision\n        status\n        author\n        kinds\n        changes {\n          kind\n          capabilityId\n          detail\n        }\n        plan {\n          added\n          changed\n          deprecated\n          removed\n        }\n        settings {\n          fields\n          before\n          after\n        }\n        breakGlass\n        breakGlassReason\n        decidedBy\n        decisionComment\n        appliedRevision\n        createdAt\n        canApprove\n        cannotApproveReason\n      }\n    }\n    approvalPolicy {\n      kinds\n      isDefault\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApproveChangeRequest($input: DecideChangeRequestInput!) {\n    approveChangeRequest(input: $input) {\n      id\n      status\n      appliedRevision\n    }\n  }\n"): (typeof documents)["\n  mutation ApproveChangeRequest($input: DecideChangeRequestInput!) {\n    approveChangeRequest(input: $input) {\n      id\n      status\n      appliedRevision\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RejectChangeRequest($input: DecideChangeRequestInput!) {\n    rejectChangeRequest(input: $input) {\n      id\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation RejectChangeRequest($input: DecideChangeRequestInput!) {\n    rejectChangeRequest(input: $input) {\n      id\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Me {\n    me {\n      subject\n      roles\n      teams\n    }\n  }\n"): (typeof documents)["\n  query Me {\n    me {\n      subject\n      roles\n      teams\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Agents($filter: AgentFilter, $page: PageInput) {\n    agents(filter: $filter, page: $page) {\n      nodes {\n        id\n        name\n        description\n        teamId\n        revision\n        version\n        updatedAt\n        nodes {\n          nodeId\n          appliedRevision\n          lag\n          live\n          lastSeenAt\n          lastError\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query Agents($filter: AgentFilter, $page: PageInput) {\n    agents(filter: $filter, page: $page) {\n      nodes {\n        id\n        name\n        description\n        teamId\n        revision\n        version\n        updatedAt\n        nodes {\n          nodeId\n          appliedRevision\n          lag\n          live\n          lastSeenAt\n          lastError\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Teams {\n    teams(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  query Teams {\n    teams(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Callers {\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n    scopes(page: { first: 100 }) {\n      nodes {\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  query Callers {\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n    scopes(page: { first: 100 }) {\n      nodes {\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Manifests($agentId: String!) {\n    agent(id: $agentId) {\n      id\n      name\n      teamId\n      revision\n    }\n    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {\n      nodes {\n        id\n        state\n        visibility\n        requiresScopes\n        tenants\n        allTenants\n        owner\n        replacedBy\n        deprecatedAt\n        deprecationReason\n        sunsetAt\n        document\n        skill {\n          name\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Manifests($agentId: String!) {\n    agent(id: $agentId) {\n      id\n      name\n      teamId\n      revision\n    }\n    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {\n      nodes {\n        id\n        state\n        visibility\n        requiresScopes\n        tenants\n        allTenants\n        owner\n        replacedBy\n        deprecatedAt\n        deprecationReason\n        sunsetAt\n        document\n        skill {\n          name\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation ApplyManifests($input: ApplyManifestsInput!) {\n    applyManifests(input: $input) {\n      dryRun\n      applied\n      revision\n      breaking\n      added\n      removed\n      deprecated\n      unchanged\n      changed {\n        id\n        fields\n        values {\n          field\n          before\n          after\n        }\n      }\n      leaks {\n        skillId\n        field\n        text\n      }\n      publicCardDiff {\n        kind\n        skillId\n        extensionUri\n        detail\n        breaking\n      }\n      approvalRequired {\n        kind\n        capabilityId\n        detail\n      }\n      changeRequest {\n        id\n        status\n        baseRevision\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation ApplyManifests($input: ApplyManifestsInput!) {\n    applyManifests(input: $input) {\n      dryRun\n      applied\n      revision\n      breaking\n      added\n      removed\n      deprecated\n      unchanged\n      changed {\n        id\n        fields\n        values {\n          field\n          before\n          after\n        }\n      }\n      leaks {\n        skillId\n        field\n        text\n      }\n      publicCardDiff {\n        kind\n        skillId\n        extensionUri\n        detail\n        breaking\n      }\n      approvalRequired {\n        kind\n        capabilityId\n        detail\n      }\n      changeRequest {\n        id\n        status\n        baseRevision\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation UpdateManifest($input: ManifestDocumentInput!) {\n    updateManifest(input: $input) {\n      revision\n      manifest {\n        id\n        state\n      }\n    }\n  }\n"): (typeof documents)["\n  mutation UpdateManifest($input: ManifestDocumentInput!) {\n    updateManifest(input: $input) {\n      revision\n      manifest {\n        id\n        state\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Promote($input: LifecycleInput!) {\n    promoteManifest(input: $input) {\n      revision\n    }\n  }\n"): (typeof documents)["\n  mutation Promote($input: LifecycleInput!) {\n    promoteManifest(input: $input) {\n      revision\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Deprecate($input: DeprecateInput!) {\n    deprecateManifest(input: $input) {\n      revision\n    }\n  }\n"): (typeof documents)["\n  mutation Deprecate($input: DeprecateInput!) {\n    deprecateManifest(input: $input) {\n      revision\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation Remove($input: LifecycleInput!) {\n    removeManifest(input: $input) {\n      revision\n    }\n  }\n"): (typeof documents)["\n  mutation Remove($input: LifecycleInput!) {\n    removeManifest(input: $input) {\n      revision\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CallerView($agentId: String!, $as: CallerInput) {\n    publicCard(agentId: $agentId) {\n      revision\n      etag\n      card\n    }\n    routerIndex(agentId: $agentId, as: $as) {\n      revision\n      value\n    }\n    executionPolicy(agentId: $agentId, as: $as) {\n      revision\n      value\n    }\n    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {\n      nodes {\n        id\n        state\n        visibility\n      }\n    }\n  }\n"): (typeof documents)["\n  query CallerView($agentId: String!, $as: CallerInput) {\n    publicCard(agentId: $agentId) {\n      revision\n      etag\n      card\n    }\n    routerIndex(agentId: $agentId, as: $as) {\n      revision\n      value\n    }\n    executionPolicy(agentId: $agentId, as: $as) {\n      revision\n      value\n    }\n    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {\n      nodes {\n        id\n        state\n        visibility\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ExtendedCard($agentId: String!, $as: CallerInput!) {\n    extendedCard(agentId: $agentId, as: $as) {\n      revision\n      etag\n      card\n    }\n  }\n"): (typeof documents)["\n  query ExtendedCard($agentId: String!, $as: CallerInput!) {\n    extendedCard(agentId: $agentId, as: $as) {\n      revision\n      etag\n      card\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Explain($agentId: String!, $as: CallerInput, $capabilityId: String!) {\n    explainVisibility(agentId: $agentId, as: $as, capabilityId: $capabilityId) {\n      agentId\n      capabilityId\n      revision\n      inPublicCard\n      inExtendedCard\n      routable\n      rule\n      reason\n    }\n  }\n"): (typeof documents)["\n  query Explain($agentId: String!, $as: CallerInput, $capabilityId: String!) {\n    explainVisibility(agentId: $agentId, as: $as, capabilityId: $capabilityId) {\n      agentId\n      capabilityId\n      revision\n      inPublicCard\n      inExtendedCard\n      routable\n      rule\n      reason\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RouteTest($input: RouteTestInput!) {\n    routeTest(input: $input) {\n      revision\n      results {\n        index\n        text\n        expect\n        got\n        confidence\n        correct\n        wrong\n        layer\n        reason\n        candidates {\n          id\n          score\n        }\n        indexSize\n      }\n    }\n  }\n"): (typeof documents)["\n  query RouteTest($input: RouteTestInput!) {\n    routeTest(input: $input) {\n      revision\n      results {\n        index\n        text\n        expect\n        got\n        confidence\n        correct\n        wrong\n        layer\n        reason\n        candidates {\n          id\n          score\n        }\n        indexSize\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Fleet($agentId: ID!) {\n    fleet(agentId: $agentId) {\n      agentId\n      currentRevision\n      upToDate\n      nodes {\n        nodeId\n        hostname\n        appliedRevision\n        lag\n        live\n        lastSeenAt\n        lastError\n        lastErrorAt\n        unservable\n        warnings\n      }\n    }\n  }\n"): (typeof documents)["\n  query Fleet($agentId: ID!) {\n    fleet(agentId: $agentId) {\n      agentId\n      currentRevision\n      upToDate\n      nodes {\n        nodeId\n        hostname\n        appliedRevision\n        lag\n        live\n        lastSeenAt\n        lastError\n        lastErrorAt\n        unservable\n        warnings\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Usage($agentId: String!, $filter: UsageFilter!, $page: PageInput) {\n    usage(filter: $filter, page: $page) {\n      nodes {\n        day\n        capabilityId\n        tenantId\n        calls\n        lastCallAt\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n    retirementPreview(agentId: $agentId) {\n      asOf\n      retire {\n        capabilityId\n        because\n      }\n      skipped {\n        capabilityId\n        reasons {\n          code\n          message\n          calls\n          lastCallAt\n          eligibleAt\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query Usage($agentId: String!, $filter: UsageFilter!, $page: PageInput) {\n    usage(filter: $filter, page: $page) {\n      nodes {\n        day\n        capabilityId\n        tenantId\n        calls\n        lastCallAt\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n    retirementPreview(agentId: $agentId) {\n      asOf\n      retire {\n        capabilityId\n        because\n      }\n      skipped {\n        capabilityId\n        reasons {\n          code\n          message\n          calls\n          lastCallAt\n          eligibleAt\n        }\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CapabilityImpact($agentId: String!, $capabilityId: String!) {\n    capabilityImpact(agentId: $agentId, capabilityId: $capabilityId) {\n      capabilityId\n      state\n      calls\n      lastCallAt\n      replacedBy\n      deprecatedAt\n      sunsetAt\n      earliestRetirementAt\n      retirementBlockers {\n        code\n        message\n      }\n      tenants {\n        tenantId\n        calls\n        lastCallAt\n      }\n      nodes {\n        nodeId\n        calls\n        lastCallAt\n      }\n      unknownUsage {\n        nodeId\n        from\n        until\n      }\n    }\n  }\n"): (typeof documents)["\n  query CapabilityImpact($agentId: String!, $capabilityId: String!) {\n    capabilityImpact(agentId: $agentId, capabilityId: $capabilityId) {\n      capabilityId\n      state\n      calls\n      lastCallAt\n      replacedBy\n      deprecatedAt\n      sunsetAt\n      earliestRetirementAt\n      retirementBlockers {\n        code\n        message\n      }\n      tenants {\n        tenantId\n        calls\n        lastCallAt\n      }\n      nodes {\n        nodeId\n        calls\n        lastCallAt\n      }\n      unknownUsage {\n        nodeId\n        from\n        until\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query Audit($filter: AuditFilter, $page: PageInput) {\n    auditEvents(filter: $filter, page: $page) {\n      nodes {\n        id\n        at\n        actor\n        action\n        targetType\n        targetId\n        agentId\n        revision\n        before\n        after\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query Audit($filter: AuditFilter, $page: PageInput) {\n    auditEvents(filter: $filter, page: $page) {\n      nodes {\n        id\n        at\n        actor\n        action\n        targetType\n        targetId\n        agentId\n        revision\n        before\n        after\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query RegistryRevisions($agentId: String!, $page: PageInput) {\n    registryRevisions(agentId: $agentId, page: $page) {\n      nodes {\n        revision\n        actor\n        summary\n        createdAt\n        capabilities {\n          capabilityId\n          action\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"): (typeof documents)["\n  query RegistryRevisions($agentId: String!, $page: PageInput) {\n    registryRevisions(agentId: $agentId, page: $page) {\n      nodes {\n        revision\n        actor\n        summary\n        createdAt\n        capabilities {\n          capabilityId\n          action\n        }\n      }\n      pageInfo {\n        hasNextPage\n        endCursor\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ManifestsAtRevision($agentId: String!, $revision: Int!) {\n    manifestsAtRevision(agentId: $agentId, revision: $revision) {\n      revision\n      currentRevision\n      manifests\n    }\n  }\n"): (typeof documents)["\n  query ManifestsAtRevision($agentId: String!, $revision: Int!) {\n    manifestsAtRevision(agentId: $agentId, revision: $revision) {\n      revision\n      currentRevision\n      manifests\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query ApprovalPolicy {\n    approvalPolicy {\n      kinds\n      isDefault\n      updatedBy\n      updatedAt\n    }\n  }\n"): (typeof documents)["\n  query ApprovalPolicy {\n    approvalPolicy {\n      kinds\n      isDefault\n      updatedBy\n      updatedAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetApprovalPolicy($input: SetApprovalPolicyInput!) {\n    setApprovalPolicy(input: $input) {\n      kinds\n      isDefault\n    }\n  }\n"): (typeof documents)["\n  mutation SetApprovalPolicy($input: SetApprovalPolicyInput!) {\n    setApprovalPolicy(input: $input) {\n      kinds\n      isDefault\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query PlatformSettings {\n    notificationEndpoints(limit: 100) {\n      tenantId\n      url\n      createdBy\n      updatedAt\n    }\n    deprecationNotices(status: dead, limit: 50) {\n      id\n      tenantId\n      agentId\n      capabilityId\n      event\n      attempts\n      lastError\n      createdAt\n    }\n    retirementRuns(limit: 10) {\n      id\n      status\n      trigger\n      requestedBy\n      createdAt\n      finishedAt\n      retiredCount\n      skippedCount\n      errors {\n        agentId\n        message\n      }\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n"): (typeof documents)["\n  query PlatformSettings {\n    notificationEndpoints(limit: 100) {\n      tenantId\n      url\n      createdBy\n      updatedAt\n    }\n    deprecationNotices(status: dead, limit: 50) {\n      id\n      tenantId\n      agentId\n      capabilityId\n      event\n      attempts\n      lastError\n      createdAt\n    }\n    retirementRuns(limit: 10) {\n      id\n      status\n      trigger\n      requestedBy\n      createdAt\n      finishedAt\n      retiredCount\n      skippedCount\n      errors {\n        agentId\n        message\n      }\n    }\n    tenants(page: { first: 100 }) {\n      nodes {\n        id\n        name\n      }\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetNotificationEndpoint($input: NotificationEndpointInput!) {\n    setNotificationEndpoint(input: $input) {\n      tenantId\n      url\n      secret\n    }\n  }\n"): (typeof documents)["\n  mutation SetNotificationEndpoint($input: NotificationEndpointInput!) {\n    setNotificationEndpoint(input: $input) {\n      tenantId\n      url\n      secret\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DeleteNotificationEndpoint($tenantId: String!) {\n    deleteNotificationEndpoint(tenantId: $tenantId) {\n      tenantId\n    }\n  }\n"): (typeof documents)["\n  mutation DeleteNotificationEndpoint($tenantId: String!) {\n    deleteNotificationEndpoint(tenantId: $tenantId) {\n      tenantId\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RedeliverDeprecationNotice($id: String!) {\n    redeliverDeprecationNotice(id: $id) {\n      id\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation RedeliverDeprecationNotice($id: String!) {\n    redeliverDeprecationNotice(id: $id) {\n      id\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation RunRetirementNow {\n    runRetirementNow {\n      id\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation RunRetirementNow {\n    runRetirementNow {\n      id\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query AgentOperations($agentId: String!, $budgetsOf: ID!) {\n    costBudgets(agentId: $budgetsOf) {\n      revision\n      budgets {\n        costClass\n        calls\n        windowS\n      }\n    }\n    routingClarifications(agentId: $agentId, status: \"pending\") {\n      id\n      capabilityId\n      tenant\n      text\n      count\n      lastSeenAt\n    }\n  }\n"): (typeof documents)["\n  query AgentOperations($agentId: String!, $budgetsOf: ID!) {\n    costBudgets(agentId: $budgetsOf) {\n      revision\n      budgets {\n        costClass\n        calls\n        windowS\n      }\n    }\n    routingClarifications(agentId: $agentId, status: \"pending\") {\n      id\n      capabilityId\n      tenant\n      text\n      count\n      lastSeenAt\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetCostBudgets($input: SetCostBudgetsInput!) {\n    setCostBudgets(input: $input) {\n      revision\n    }\n  }\n"): (typeof documents)["\n  mutation SetCostBudgets($input: SetCostBudgetsInput!) {\n    setCostBudgets(input: $input) {\n      revision\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation SetSunset($input: SetSunsetInput!) {\n    setSunset(input: $input) {\n      revision\n    }\n  }\n"): (typeof documents)["\n  mutation SetSunset($input: SetSunsetInput!) {\n    setSunset(input: $input) {\n      revision\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation PromoteRoutingClarification($input: PromoteClarificationInput!) {\n    promoteRoutingClarification(input: $input) {\n      revision\n    }\n  }\n"): (typeof documents)["\n  mutation PromoteRoutingClarification($input: PromoteClarificationInput!) {\n    promoteRoutingClarification(input: $input) {\n      revision\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  mutation DismissRoutingClarification($id: ID!) {\n    dismissRoutingClarification(id: $id) {\n      id\n      status\n    }\n  }\n"): (typeof documents)["\n  mutation DismissRoutingClarification($id: ID!) {\n    dismissRoutingClarification(id: $id) {\n      id\n      status\n    }\n  }\n"];
/**
 * The graphql function is used to parse GraphQL queries into a document that can be used by GraphQL clients.
 */
export function graphql(source: "\n  query CapabilityHealth($filter: CapabilityHealthFilter!, $page: PageInput) {\n    capabilityHealth(filter: $filter, page: $page) {\n      from\n      to\n      rows {\n        nodes {\n          capabilityId\n          tenantId\n          calls\n          ended\n          errorRate\n          refusedRate\n          p50Ms\n          p95Ms\n          outcomes {\n            completed\n            failed\n            rejected\n            canceled\n            refused\n            inputRequired\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"): (typeof documents)["\n  query CapabilityHealth($filter: CapabilityHealthFilter!, $page: PageInput) {\n    capabilityHealth(filter: $filter, page: $page) {\n      from\n      to\n      rows {\n        nodes {\n          capabilityId\n          tenantId\n          calls\n          ended\n          errorRate\n          refusedRate\n          p50Ms\n          p95Ms\n          outcomes {\n            completed\n            failed\n            rejected\n            canceled\n            refused\n            inputRequired\n          }\n        }\n        pageInfo {\n          hasNextPage\n          endCursor\n        }\n      }\n    }\n  }\n"];

export function graphql(source: string) {
  return (documents as any)[source] ?? {};
}

export type DocumentType<TDocumentNode extends DocumentNode<any, any>> = TDocumentNode extends DocumentNode<  infer TType,  any>  ? TType  : never;