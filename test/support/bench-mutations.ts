/**
 * The change the propagation benches make: the agent's description, through the admin GraphQL API
 * (so each change pays the mutation's HTTP, validation, transaction, build, signing and publish).
 */
export async function updateAgentDescription(
  url: string,
  adminToken: string,
  change: { agentId: string; expectedRevision: number; description: string },
  retry: { attempts: number; onRetry?: (why: string) => void } = { attempts: 0 },
): Promise<number> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${url}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${adminToken}` },
      body: JSON.stringify({
        query: 'mutation($input: UpdateAgentInput!) { updateAgent(input: $input) { revision } }',
        variables: { input: { id: change.agentId, expectedRevision: change.expectedRevision, description: change.description } },
      }),
    });
    const body = (await res.json()) as { data?: { updateAgent: { revision: number } }; errors?: unknown };
    if (body.data) return body.data.updateAgent.revision;
    const why = JSON.stringify(body.errors);
    if (attempt >= retry.attempts) throw new Error(`mutation failed: ${why}`);
    retry.onRetry?.(why.slice(0, 120));
    await new Promise((r) => setTimeout(r, 500));
  }
}
