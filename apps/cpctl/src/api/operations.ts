/** GraphQL documents, written against apps/control-plane/schema.graphql (the e2e suite runs each one). */

const AGENT_FIELDS = `
  id revision name description version
  provider { organization url }
  documentationUrl iconUrl
  supportedInterfaces { url protocolBinding protocolVersion tenant }
  securitySchemes securityRequirements
  defaultInputModes defaultOutputModes
  extensions { uri description required params }
  protocol { streaming pushNotifications extendedAgentCard versions webhookAllow upstreamAllow }`;

export const AGENT_QUERY = `query CpctlAgent($id: String!) { agent(id: $id) { ${AGENT_FIELDS} } }`;

export const SET_ALLOW_LIST_MUTATION = `mutation CpctlSetAllowList($input: UpdateAgentInput!) {
  updateAgent(input: $input) {
    revision
    protocol { webhookAllow upstreamAllow }
    changeRequest { id status baseRevision breakGlass changes { kind capabilityId detail } }
  }
}`;

export const MANIFESTS_QUERY = `query CpctlManifests($agentId: String!, $first: Int, $after: String) {
  manifests(filter: { agentId: $agentId }, page: { first: $first, after: $after }) { nodes { document } pageInfo { endCursor hasNextPage } }
}`;

export const PUBLIC_CARD_QUERY = `query CpctlPublicCard($agentId: String!) { publicCard(agentId: $agentId) { card } }`;

export const APPLY_MUTATION = `mutation CpctlApply($input: ApplyManifestsInput!) {
  applyManifests(input: $input) {
    dryRun applied revision
    added deprecated removed unchanged
    changed { id fields }
    publicCardDiff { kind skillId extensionUri breaking detail }
    breaking
    leaks { skillId field text }
    impact { capabilityId kind detail calls callers { tenantId calls lastCallAt } }
    approvalRequired { kind capabilityId detail }
    breakGlass
    changeRequest { id status baseRevision breakGlass }
  }
}`;

const CHANGE_REQUEST_FIELDS = `id agentId baseRevision status author kinds changes { kind capabilityId detail }
  breakGlass breakGlassReason decidedBy decisionComment appliedRevision createdAt canApprove cannotApproveReason`;

export const CHANGE_REQUESTS_QUERY = `query CpctlChangeRequests($filter: ChangeRequestFilter, $page: PageInput) {
  changeRequests(filter: $filter, page: $page) { nodes { ${CHANGE_REQUEST_FIELDS} } pageInfo { hasNextPage endCursor } }
}`;

export const APPROVE_CHANGE_REQUEST = `mutation CpctlApprove($input: DecideChangeRequestInput!) {
  approveChangeRequest(input: $input) { ${CHANGE_REQUEST_FIELDS} }
}`;

export const REJECT_CHANGE_REQUEST = `mutation CpctlReject($input: DecideChangeRequestInput!) {
  rejectChangeRequest(input: $input) { ${CHANGE_REQUEST_FIELDS} }
}`;

export const ROUTE_TEST_QUERY = `query CpctlRouteTest($input: RouteTestInput!) {
  routeTest(input: $input) {
    total correct accuracy minAccuracy wrongRoutes passed
    changes { index text expect before after }
  }
}`;

export const UPSTREAM_DRIFT_QUERY = `query CpctlUpstreamDrift($agentId: ID!) {
  fleet(agentId: $agentId) {
    agentId
    nodes { nodeId live unservable warnings }
    upstreamDrift {
      card status reason checkedAt truncated
      covered { capabilityId skill }
      uncovered { id name }
      missing { capabilityId skill }
    }
  }
}`;
