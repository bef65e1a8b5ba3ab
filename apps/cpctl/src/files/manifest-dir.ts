/**
 * A directory of manifest files: every `*.yaml`, `*.yml` and `*.json` at its top level holds one
 * manifest document or a list of them; `agent.yaml` (or `.yml`/`.json`) holds the agent's card
 * base instead. Files are read in name order, so the set (and every message) is deterministic.
 */
import { readdir, stat } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { validateManifests, type CapabilityManifest } from '@cp/capabilities';
import { CpctlError, CpctlErrorCode } from '../cpctl.errors';
import { parseAgentDocument, type AgentFile } from './agent-document';
import type { FileIssue } from './file-issue';
import { readDocument } from './read-document';

export const MANIFEST_EXTENSIONS = ['.yaml', '.yml', '.json'];
export const AGENT_FILES = ['agent.yaml', 'agent.yml', 'agent.json'];
/** Labelled routing messages (cpctl route test), not a manifest file. */
export const ROUTING_TEST_FILES = ['routing-tests.yaml', 'routing-tests.yml', 'routing-tests.json'];

/** Where one manifest document sits: its file, and `$` (whole file) or `$[k]` (k-th list entry). */
export interface DocumentSource {
  file: string;
  at: string;
}

export interface ManifestDir {
  dir: string;
  /** Validated manifests, in file order, when there are no issues. */
  manifests: CapabilityManifest[];
  sources: DocumentSource[];
  agent?: AgentFile;
  agentFile?: string;
  issues: FileIssue[];
}

async function listFiles(dir: string): Promise<string[]> {
  try {
    if (!(await stat(dir)).isDirectory()) throw new CpctlError(CpctlErrorCode.Usage, `${dir} is not a directory`);
    return (await readdir(dir))
      .filter((f) => !f.startsWith('.') && MANIFEST_EXTENSIONS.includes(extname(f)) && !ROUTING_TEST_FILES.includes(f))
      .sort();
  } catch (error) {
    if (error instanceof CpctlError) throw error;
    throw new CpctlError(
      CpctlErrorCode.Usage,
      `cannot read directory ${dir}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
}

/** Rewrites `$[i]…` of the combined list into `file: $…` of the file the document came from. */
export function locate(path: string, sources: readonly DocumentSource[]): { file: string; path: string } {
  const m = /^\$\[(\d+)\](.*)$/.exec(path);
  const src = m ? sources[Number(m[1])] : undefined;
  if (!m || !src) return { file: sources[0]?.file ?? '', path };
  return { file: src.file, path: `${src.at}${m[2]}` };
}

export const mentionOf = (message: string, sources: readonly DocumentSource[]) =>
  message.replace(/\$\[(\d+)\]/g, (whole, i: string) => {
    const src = sources[Number(i)];
    return src ? `${src.file}${src.at === '$' ? '' : ` ${src.at}`}` : whole;
  });

/** Reads and validates a directory; never throws for invalid content (see `issues`). */
export async function readManifestDir(dir: string): Promise<ManifestDir> {
  const names = await listFiles(dir);
  const out: ManifestDir = { dir, manifests: [], sources: [], issues: [] };
  const docs: unknown[] = [];
  for (const name of names) {
    const file = join(dir, name);
    const parsed = await readDocument(file);
    if (!parsed.ok) {
      out.issues.push(...parsed.issues);
      continue;
    }
    if (AGENT_FILES.includes(name)) {
      if (out.agentFile) {
        out.issues.push({ file, path: '$', message: `a second agent file (${out.agentFile} is the first): keep one` });
        continue;
      }
      out.agentFile = file;
      const agent = parseAgentDocument(parsed.value);
      if (agent.ok) out.agent = agent.agent;
      else out.issues.push(...agent.errors.map((e) => ({ file, ...e })));
      continue;
    }
    if (Array.isArray(parsed.value)) {
      if (parsed.value.length === 0) out.issues.push({ file, path: '$', message: 'the list holds no manifest' });
      parsed.value.forEach((doc, k) => {
        docs.push(doc);
        out.sources.push({ file, at: `$[${k}]` });
      });
    } else {
      docs.push(parsed.value);
      out.sources.push({ file, at: '$' });
    }
  }
  if (docs.length === 0 && out.issues.length === 0) {
    out.issues.push({
      file: dir,
      path: '$',
      message: `no manifest files (${MANIFEST_EXTENSIONS.map((e) => `*${e}`).join(', ')}) in this directory`,
    });
  }
  const result = validateManifests(docs);
  if (result.ok) out.manifests = out.issues.length === 0 ? result.manifests : [];
  else out.issues.push(...result.errors.map((e) => ({ ...locate(e.path, out.sources), message: mentionOf(e.message, out.sources) })));
  // Report file by file (in name order), each file's problems in the order found.
  const rank = new Map(names.map((n, i) => [join(dir, n), i] as const));
  out.issues = out.issues
    .map((issue, i) => [issue, i] as const)
    .sort(([a, i], [b, j]) => (rank.get(a.file) ?? -1) - (rank.get(b.file) ?? -1) || i - j)
    .map(([x]) => x);
  return out;
}

/** The directory, or a CpctlError listing every problem (commands that need valid input). */
export async function loadManifestDir(dir: string): Promise<ManifestDir & { manifests: CapabilityManifest[] }> {
  const read = await readManifestDir(dir);
  if (read.issues.length > 0)
    throw new CpctlError(CpctlErrorCode.InvalidFiles, `${dir}: ${read.issues.length} problem(s) in the manifest files`, read.issues);
  return read;
}
