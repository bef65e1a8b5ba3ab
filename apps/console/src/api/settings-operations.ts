import { graphql } from '../gql';

/**
 * What the settings screen and the agent page's operations sections read and write: the approval
 * policy, tenants' notification endpoints and dead-lettered notices, retirement runs, an agent's
 * cost budgets, sunset dates and routing clarifications.
 */
export const ApprovalPolicyQuery = graphql(`
  query ApprovalPolicy {
    approvalPolicy {
      kinds
      isDefault
      updatedBy
      updatedAt
    }
  }
`);

export const SetApprovalPolicyMutation = graphql(`
  mutation SetApprovalPolicy($input: SetApprovalPolicyInput!) {
    setApprovalPolicy(input: $input) {
      kinds
      isDefault
    }
  }
`);

/** Platform-wide lists the API gives platform admins and viewers only (a team admin is refused). */
export const PlatformSettingsQuery = graphql(`
  query PlatformSettings {
    notificationEndpoints(limit: 100) {
      tenantId
      url
      createdBy
      updatedAt
    }
    deprecationNotices(status: dead, limit: 50) {
      id
      tenantId
      agentId
      capabilityId
      event
      attempts
      lastError
      createdAt
    }
    retirementRuns(limit: 10) {
      id
      status
      trigger
      requestedBy
      createdAt
      finishedAt
      retiredCount
      skippedCount
      errors {
        agentId
        message
      }
    }
    tenants(page: { first: 100 }) {
      nodes {
        id
        name
      }
    }
  }
`);

export const SetNotificationEndpointMutation = graphql(`
  mutation SetNotificationEndpoint($input: NotificationEndpointInput!) {
    setNotificationEndpoint(input: $input) {
      tenantId
      url
      secret
    }
  }
`);

export const DeleteNotificationEndpointMutation = graphql(`
  mutation DeleteNotificationEndpoint($tenantId: String!) {
    deleteNotificationEndpoint(tenantId: $tenantId) {
      tenantId
    }
  }
`);

export const RedeliverDeprecationNoticeMutation = graphql(`
  mutation RedeliverDeprecationNotice($id: String!) {
    redeliverDeprecationNotice(id: $id) {
      id
      status
    }
  }
`);

export const RunRetirementNowMutation = graphql(`
  mutation RunRetirementNow {
    runRetirementNow {
      id
      status
    }
  }
`);

/** An agent's cost budgets and the clarifications its callers resolved, pending review. */
export const AgentOperationsQuery = graphql(`
  query AgentOperations($agentId: String!, $budgetsOf: ID!) {
    costBudgets(agentId: $budgetsOf) {
      revision
      budgets {
        costClass
        calls
        windowS
      }
    }
    routingClarifications(agentId: $agentId, status: "pending") {
      id
      capabilityId
      tenant
      text
      count
      lastSeenAt
    }
  }
`);

export const SetCostBudgetsMutation = graphql(`
  mutation SetCostBudgets($input: SetCostBudgetsInput!) {
    setCostBudgets(input: $input) {
      revision
    }
  }
`);

export const SetSunsetMutation = graphql(`
  mutation SetSunset($input: SetSunsetInput!) {
    setSunset(input: $input) {
      revision
    }
  }
`);

export const PromoteRoutingClarificationMutation = graphql(`
  mutation PromoteRoutingClarification($input: PromoteClarificationInput!) {
    promoteRoutingClarification(input: $input) {
      revision
    }
  }
`);

export const DismissRoutingClarificationMutation = graphql(`
  mutation DismissRoutingClarification($id: ID!) {
    dismissRoutingClarification(id: $id) {
      id
      status
    }
  }
`);
