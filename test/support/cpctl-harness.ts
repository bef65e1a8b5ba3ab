/**
 * Drives the real cpctl command (its workspace `bin`, apps/cpctl/bin/cpctl.cjs, from source) as a child process, and
 * writes manifest directories for it. Used by the cpctl-*.e2e-spec.ts suites.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import YAML from 'yaml';
import { toManifestDocument, type AgentBase, type CapabilityManifest } from '@cp/capabilities';

const LAUNCHER = join(__dirname, '../../apps/cpctl/bin/cpctl.cjs');

export interface CpctlRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout parsed (with --json). */
  json<T = Record<string, unknown>>(): T;
}

/** Runs cpctl with a clean environment (no CPCTL_* leaking in from the developer's shell). */
export function cpctl(args: string[], env: Record<string, string> = {}): Promise<CpctlRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [LAUNCHER, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), CPCTL_FROM_SOURCE: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, json: <T>() => JSON.parse(stdout) as T }));
  });
}

export class Workspace {
  readonly root = mkdtempSync(join(tmpdir(), 'cpctl-e2e-'));

  path(...parts: string[]): string {
    return join(this.root, ...parts);
  }

  /** A directory with one `<id>.yaml` per manifest and, when given, agent.yaml. */
  manifestDir(name: string, manifests: CapabilityManifest[], agent?: AgentBase & { id?: string }): string {
    const dir = this.path(name);
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    for (const m of manifests) writeFileSync(join(dir, `${m.id}.yaml`), YAML.stringify(toManifestDocument(m)));
    if (agent) writeFileSync(join(dir, 'agent.yaml'), YAML.stringify(agent));
    return dir;
  }

  write(file: string, content: string): string {
    const path = this.path(file);
    writeFileSync(path, content);
    return path;
  }

  remove(): void {
    rmSync(this.root, { recursive: true, force: true });
  }
}
