import { graphql } from '../gql';

export const MeQuery = graphql(`
  query Me {
    me {
      subject
      roles
      teams
    }
  }
`);

export const AgentsQuery = graphql(`
  query Agents($filter: AgentFilter, $page: PageInput) {
    agents(filter: $filter, page: $page) {
      nodes {
        id
        name
        description
        teamId
        revision
        version
        updatedAt
        nodes {
          nodeId
          appliedRevision
          lag
          live
          lastSeenAt
          lastError
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const TeamsQuery = graphql(`
  query Teams {
    teams(page: { first: 100 }) {
      nodes {
        id
        name
      }
    }
  }
`);

export const CallersQuery = graphql(`
  query Callers {
    tenants(page: { first: 100 }) {
      nodes {
        id
        name
      }
    }
    scopes(page: { first: 100 }) {
      nodes {
        name
      }
    }
  }
`);

export const ManifestsQuery = graphql(`
  query Manifests($agentId: String!) {
    agent(id: $agentId) {
      id
      name
      teamId
      revision
    }
    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {
      nodes {
        id
        state
        visibility
        requiresScopes
        tenants
        allTenants
        owner
        replacedBy
        deprecatedAt
        deprecationReason
        sunsetAt
        document
        skill {
          name
        }
      }
    }
  }
`);

export const ApplyManifestsMutation = graphql(`
  mutation ApplyManifests($input: ApplyManifestsInput!) {
    applyManifests(input: $input) {
      dryRun
      applied
      revision
      breaking
      added
      removed
      deprecated
      unchanged
      changed {
        id
        fields
        values {
          field
          before
          after
        }
      }
      leaks {
        skillId
        field
        text
      }
      publicCardDiff {
        kind
        skillId
        extensionUri
        detail
        breaking
      }
      approvalRequired {
        kind
        capabilityId
        detail
      }
      changeRequest {
        id
        status
        baseRevision
      }
    }
  }
`);

export const UpdateManifestMutation = graphql(`
  mutation UpdateManifest($input: ManifestDocumentInput!) {
    updateManifest(input: $input) {
      revision
      manifest {
        id
        state
      }
    }
  }
`);

export const PromoteMutation = graphql(`
  mutation Promote($input: LifecycleInput!) {
    promoteManifest(input: $input) {
      revision
    }
  }
`);

export const DeprecateMutation = graphql(`
  mutation Deprecate($input: DeprecateInput!) {
    deprecateManifest(input: $input) {
      revision
    }
  }
`);

export const RemoveMutation = graphql(`
  mutation Remove($input: LifecycleInput!) {
    removeManifest(input: $input) {
      revision
    }
  }
`);

export const CallerViewQuery = graphql(`
  query CallerView($agentId: String!, $as: CallerInput) {
    publicCard(agentId: $agentId) {
      revision
      etag
      card
    }
    routerIndex(agentId: $agentId, as: $as) {
      revision
      value
    }
    executionPolicy(agentId: $agentId, as: $as) {
      revision
      value
    }
    manifests(filter: { agentId: $agentId }, page: { first: 100 }) {
      nodes {
        id
        state
        visibility
      }
    }
  }
`);

export const ExtendedCardQuery = graphql(`
  query ExtendedCard($agentId: String!, $as: CallerInput!) {
    extendedCard(agentId: $agentId, as: $as) {
      revision
      etag
      card
    }
  }
`);

export const ExplainQuery = graphql(`
  query Explain($agentId: String!, $as: CallerInput, $capabilityId: String!) {
    explainVisibility(agentId: $agentId, as: $as, capabilityId: $capabilityId) {
      agentId
      capabilityId
      revision
      inPublicCard
      inExtendedCard
      routable
      rule
      reason
    }
  }
`);

export const RouteTestQuery = graphql(`
  query RouteTest($input: RouteTestInput!) {
    routeTest(input: $input) {
      revision
      results {
        index
        text
        expect
        got
        confidence
        correct
        wrong
        layer
        reason
        candidates {
          id
          score
        }
        indexSize
      }
    }
  }
`);

export const FleetQuery = graphql(`
  query Fleet($agentId: ID!) {
    fleet(agentId: $agentId) {
      agentId
      currentRevision
      upToDate
      nodes {
        nodeId
        hostname
        appliedRevision
        lag
        live
        lastSeenAt
        lastError
        lastErrorAt
        unservable
        warnings
      }
    }
  }
`);

export const UsageQuery = graphql(`
  query Usage($agentId: String!, $filter: UsageFilter!, $page: PageInput) {
    usage(filter: $filter, page: $page) {
      nodes {
        day
        capabilityId
        tenantId
        calls
        lastCallAt
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
    retirementPreview(agentId: $agentId) {
      asOf
      retire {
        capabilityId
        because
      }
      skipped {
        capabilityId
        reasons {
          code
          message
          calls
          lastCallAt
          eligibleAt
        }
      }
    }
  }
`);

export const CapabilityImpactQuery = graphql(`
  query CapabilityImpact($agentId: String!, $capabilityId: String!) {
    capabilityImpact(agentId: $agentId, capabilityId: $capabilityId) {
      capabilityId
      state
      calls
      lastCallAt
      replacedBy
      deprecatedAt
      sunsetAt
      earliestRetirementAt
      retirementBlockers {
        code
        message
      }
      tenants {
        tenantId
        calls
        lastCallAt
      }
      nodes {
        nodeId
        calls
        lastCallAt
      }
      unknownUsage {
        nodeId
        from
        until
      }
    }
  }
`);

export const AuditQuery = graphql(`
  query Audit($filter: AuditFilter, $page: PageInput) {
    auditEvents(filter: $filter, page: $page) {
      nodes {
        id
        at
        actor
        action
        targetType
        targetId
        agentId
        revision
        before
        after
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const RegistryRevisionsQuery = graphql(`
  query RegistryRevisions($agentId: String!, $page: PageInput) {
    registryRevisions(agentId: $agentId, page: $page) {
      nodes {
        revision
        actor
        summary
        createdAt
        capabilities {
          capabilityId
          action
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
    }
  }
`);

export const ManifestsAtRevisionQuery = graphql(`
  query ManifestsAtRevision($agentId: String!, $revision: Int!) {
    manifestsAtRevision(agentId: $agentId, revision: $revision) {
      revision
      currentRevision
      manifests
    }
  }
`);
