import { graphql } from '../gql';

/** The directory (teams, tenants, scopes) and the agent's own settings: what the forms read and write. */
export const DirectoryQuery = graphql(`
  query Directory {
    teams(page: { first: 100 }) {
      nodes {
        id
        name
        createdAt
      }
    }
    tenants(page: { first: 100 }) {
      nodes {
        id
        name
        createdAt
      }
    }
    scopes(page: { first: 100 }) {
      nodes {
        name
        description
        createdAt
      }
    }
  }
`);

export const CreateTeamMutation = graphql(`
  mutation CreateTeam($input: TeamInput!) {
    createTeam(input: $input) {
      id
      name
    }
  }
`);

export const RenameTeamMutation = graphql(`
  mutation RenameTeam($input: TeamInput!) {
    renameTeam(input: $input) {
      id
      name
    }
  }
`);

export const CreateTenantMutation = graphql(`
  mutation CreateTenant($input: TenantInput!) {
    createTenant(input: $input) {
      id
      name
    }
  }
`);

export const UpdateTenantMutation = graphql(`
  mutation UpdateTenant($input: TenantInput!) {
    updateTenant(input: $input) {
      id
      name
    }
  }
`);

export const DeleteTenantMutation = graphql(`
  mutation DeleteTenant($id: String!) {
    deleteTenant(id: $id) {
      id
    }
  }
`);

export const CreateScopeMutation = graphql(`
  mutation CreateScope($input: ScopeInput!) {
    createScope(input: $input) {
      name
      description
    }
  }
`);

export const UpdateScopeMutation = graphql(`
  mutation UpdateScope($input: ScopeInput!) {
    updateScope(input: $input) {
      name
      description
    }
  }
`);

export const DeleteScopeMutation = graphql(`
  mutation DeleteScope($name: String!) {
    deleteScope(name: $name) {
      name
    }
  }
`);

export const AgentSettingsQuery = graphql(`
  query AgentSettings($agentId: String!) {
    agent(id: $agentId) {
      id
      name
      description
      version
      teamId
      revision
      documentationUrl
      iconUrl
      protocol {
        versions
        streaming
        pushNotifications
        extendedAgentCard
        upstreamAllow
        webhookAllow
      }
    }
    previewOptIns(agentId: $agentId) {
      tenantId
      createdAt
    }
    tenants(page: { first: 100 }) {
      nodes {
        id
        name
      }
    }
  }
`);

export const CreateAgentMutation = graphql(`
  mutation CreateAgent($input: CreateAgentInput!) {
    createAgent(input: $input) {
      id
      revision
    }
  }
`);

export const UpdateAgentMutation = graphql(`
  mutation UpdateAgent($input: UpdateAgentInput!) {
    updateAgent(input: $input) {
      id
      revision
    }
  }
`);

export const CreatePreviewOptInMutation = graphql(`
  mutation CreatePreviewOptIn($input: PreviewOptInInput!) {
    createPreviewOptIn(input: $input) {
      revision
      optIn {
        tenantId
      }
    }
  }
`);

export const DeletePreviewOptInMutation = graphql(`
  mutation DeletePreviewOptIn($input: PreviewOptInInput!) {
    deletePreviewOptIn(input: $input) {
      revision
      optIn {
        tenantId
      }
    }
  }
`);
