/**
 * Writes a registry out as a manifest directory (export): agent.yaml plus one `<id>.yaml` per
 * manifest, removed ones included (they reserve their ids; re-applying them changes nothing).
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import YAML from 'yaml';
import { toManifestDocument, type AgentBase, type CapabilityManifest } from '@cp/capabilities';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import { toAgentDocument } from './agent-document';
import { MANIFEST_EXTENSIONS } from './manifest-dir';

// lineWidth 0: long descriptions stay on one line, so a reviewed diff shows the sentence that changed.
const yaml = (value: unknown) => YAML.stringify(value, { lineWidth: 0 });

async function existingManifestFiles(dir: string): Promise<string[]> {
  try {
    return (await readdir(dir)).filter((f) => !f.startsWith('.') && MANIFEST_EXTENSIONS.includes(extname(f))).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

export interface ExportInput {
  agentId: string;
  agent: AgentBase;
  previewTenants?: readonly string[];
  manifests: readonly CapabilityManifest[];
}

/** Returns the files written. Refuses to mix with manifest files already there unless `replace`. */
export async function writeManifestDir(dir: string, input: ExportInput, replace: boolean): Promise<string[]> {
  const existing = await existingManifestFiles(dir);
  if (existing.length > 0 && !replace) {
    throw new CpctlError(
      CpctlErrorCode.Usage,
      `${dir} already holds manifest files (${existing.slice(0, 3).join(', ')}${existing.length > 3 ? ', …' : ''}): apply would read them too. Use an empty directory, or --replace to delete them first`,
    );
  }
  await mkdir(dir, { recursive: true });
  for (const f of existing) await rm(join(dir, f));
  const files: string[] = [];
  const put = async (name: string, value: unknown) => {
    const file = join(dir, name);
    await writeFile(file, yaml(value));
    files.push(file);
  };
  await put('agent.yaml', toAgentDocument(input.agentId, input.agent, input.previewTenants));
  for (const m of [...input.manifests].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)))
    await put(`${m.id}.yaml`, toManifestDocument(m));
  return files;
}
