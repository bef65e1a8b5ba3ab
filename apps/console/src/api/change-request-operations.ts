import { graphql } from '../gql';

/** Change requests (issue 32): the list the approvals screen shows, and the two decisions. */
export const ChangeRequestsQuery = graphql(`
  query ChangeRequests($filter: ChangeRequestFilter, $page: PageInput) {
    changeRequests(filter: $filter, page: $page) {
      nodes {
        id
        agentId
        baseRevision
        status
        author
        kinds
        changes {
          kind
          capabilityId
          detail
        }
        plan {
          added
          changed
          deprecated
          removed
        }
        settings {
          fields
          before
          after
        }
        breakGlass
        breakGlassReason
        decidedBy
        decisionComment
        appliedRevision
        createdAt
        canApprove
        cannotApproveReason
      }
    }
    approvalPolicy {
      kinds
      isDefault
    }
  }
`);

export const ApproveChangeRequestMutation = graphql(`
  mutation ApproveChangeRequest($input: DecideChangeRequestInput!) {
    approveChangeRequest(input: $input) {
      id
      status
      appliedRevision
    }
  }
`);

export const RejectChangeRequestMutation = graphql(`
  mutation RejectChangeRequest($input: DecideChangeRequestInput!) {
    rejectChangeRequest(input: $input) {
      id
      status
    }
  }
`);
