/** The public card a directory would publish: the core's buildPublicCard over agent.yaml + manifests. */
import { basename, resolve } from 'node:path';
import { buildPublicCard, type AgentCard, type CapabilityManifest } from '@cp/capabilities';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import { AGENT_FILES, loadManifestDir } from '../files/manifest-dir';

export interface GeneratedCard {
  card: AgentCard;
  manifests: CapabilityManifest[];
}

export async function cardFromFiles(dir: string): Promise<GeneratedCard> {
  const read = await loadManifestDir(dir);
  if (!read.agent) {
    throw new CpctlError(
      CpctlErrorCode.Usage,
      `${dir} has no agent file (${AGENT_FILES.join(', ')}): the card's name, interfaces and switches come from it`,
    );
  }
  const card = buildPublicCard({
    agentId: read.agent.id ?? basename(resolve(dir)),
    revision: 0,
    agent: read.agent.base,
    manifests: read.manifests,
    previewTenants: read.agent.previewTenants,
  });
  return { card, manifests: read.manifests };
}
