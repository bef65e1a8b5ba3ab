/**
 * `npm run token -- <kind>`: prints a development token signed with JWT_SECRET (refused in
 * production). Kinds: admin [name] (platform-admin; subject dev:platform-admin, or dev:<name> for a second
 * admin, e.g. the reviewer of a change request), team-admin <team>, viewer, partner (a2a, tenant
 * acme-partner, scope recon.run), partner-no-scope, node <agent>. Every token carries exp and iat;
 * a2a tokens (partner, partner-no-scope) name one agent in their audience: the demo agent
 * (AGENT_ID), or the agent given as the next argument.
 */
import { loadConfig } from '@cp/common';
import { mintA2AToken, mintAdminToken, mintNodeToken } from '@cp/auth';

const config = loadConfig();
if (config.NODE_ENV === 'production') {
  process.stderr.write('npm run token is for development; production tokens come from your identity provider\n');
  process.exit(2);
}
const [kind = 'admin', arg] = process.argv.slice(2);
const tokens: Record<string, () => string> = {
  admin: () => mintAdminToken(config, arg ? `dev:${arg}` : 'dev:platform-admin', ['platform-admin']),
  'team-admin': () =>
    mintAdminToken(config, `dev:team-admin:${arg ?? 'finance-agents-team'}`, ['team-admin'], [arg ?? 'finance-agents-team']),
  viewer: () => mintAdminToken(config, 'dev:viewer', ['viewer']),
  partner: () => mintA2AToken(config, 'orchestrator@acme-partner', 'acme-partner', ['recon.run'], 3600, arg ?? config.AGENT_ID),
  'partner-no-scope': () => mintA2AToken(config, 'viewer@acme-partner', 'acme-partner', [], 3600, arg ?? config.AGENT_ID),
  node: () => mintNodeToken(config, arg ?? config.AGENT_ID),
};
const mint = tokens[kind];
if (!mint) {
  process.stderr.write(`unknown token kind "${kind}"; one of: ${Object.keys(tokens).join(', ')}\n`);
  process.exit(2);
}
process.stdout.write(`${mint()}\n`);
