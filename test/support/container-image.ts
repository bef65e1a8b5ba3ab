/**
 * The container image without a Docker engine: reads the Dockerfile, builds its context the way
 * Docker does (tracked and untracked-but-not-ignored files minus .dockerignore), and runs each
 * stage's instructions in a directory standing for the stage's `/`. Used by
 * test/e2e/container-image.e2e-spec.ts, so the test runs the Dockerfile's steps, not a copy.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, posix } from 'node:path';

export interface Instruction {
  keyword: string;
  /** The arguments with flags (`--from=…`, `--mount=…`) removed. */
  args: string;
  flags: Record<string, string>;
  line: number;
}

export interface Stage {
  name: string;
  image: string;
  instructions: Instruction[];
}

/** Instructions the reproduction understands; anything else in the Dockerfile fails the test. */
export const SUPPORTED = ['ARG', 'FROM', 'WORKDIR', 'ENV', 'COPY', 'RUN', 'USER', 'EXPOSE', 'CMD'];

export function parseDockerfile(text: string): { stages: Stage[]; unsupported: Instruction[] } {
  const lines = text.split('\n');
  const instructions: Instruction[] = [];
  for (let i = 0; i < lines.length; i++) {
    const start = i;
    let line = lines[i];
    if (/^\s*(#|$)/.test(line)) continue;
    while (line.endsWith('\\') && i + 1 < lines.length) line = line.slice(0, -1) + ' ' + lines[++i].trim();
    const [, keyword, rest] = /^\s*(\S+)\s*(.*)$/.exec(line)!;
    const flags: Record<string, string> = {};
    let args = rest;
    for (let m = /^--([a-z-]+)=(\S+)\s+/.exec(args); m; m = /^--([a-z-]+)=(\S+)\s+/.exec(args)) {
      flags[m[1]] = m[2];
      args = args.slice(m[0].length);
    }
    instructions.push({ keyword: keyword.toUpperCase(), args: args.trim(), flags, line: start + 1 });
  }
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === 'ARG' && stages.length === 0) {
      const [name, value = ''] = instruction.args.split('=');
      globalArgs[name] = value;
    } else if (instruction.keyword === 'FROM') {
      const [image, as, name] = instruction.args.split(/\s+/);
      const resolved = image.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a: string, b: string) => globalArgs[a ?? b] ?? '');
      stages.push({ name: as?.toUpperCase() === 'AS' ? name : String(stages.length), image: resolved, instructions: [] });
    } else {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return { stages, unsupported: instructions.filter((i) => !SUPPORTED.includes(i.keyword)) };
}

/** .dockerignore patterns (Docker's rule: anchored at the context root; `**` crosses folders). */
export function dockerignoreMatcher(text: string): { matches(path: string): boolean; patterns: string[] } {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'));
  const regexes = patterns.map((p) => {
    const body = p
      .replace(/^\/+|\/+$/g, '')
      .split(/(\*\*\/|\*\*|\*|\?)/)
      .map((part) =>
        part === '**/'
          ? '(?:.*/)?'
          : part === '**'
            ? '.*'
            : part === '*'
              ? '[^/]*'
              : part === '?'
                ? '[^/]'
                : part.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
    // A matched folder excludes everything below it.
    return new RegExp(`^${body}(?:/.*)?$`);
  });
  return { patterns, matches: (path) => regexes.some((r) => r.test(path)) };
}

/** The build context: what `docker build .` would send, as a directory of its own. */
export function buildContext(repo: string, into: string): string[] {
  const listed = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repo, encoding: 'utf8' })
    .split('\0')
    .filter(Boolean);
  const ignore = dockerignoreMatcher(readFileSync(join(repo, '.dockerignore'), 'utf8'));
  const files = listed.filter((file) => !ignore.matches(file) && existsSync(join(repo, file)));
  for (const file of files) {
    mkdirSync(dirname(join(into, file)), { recursive: true });
    cpSync(join(repo, file), join(into, file));
  }
  return files;
}

export interface StageResult {
  /** The directory standing for the stage's `/`. */
  root: string;
  workdir: string;
  env: Record<string, string>;
  user: string | undefined;
  cmd: string[] | undefined;
}

/**
 * Runs one stage: WORKDIR, ENV, COPY (from the context or `--from` an earlier stage) and RUN
 * (`sh -c` in the stage's working directory, with the stage's ENV and a minimal base environment,
 * as in a container). The reproduction cannot switch users: `chown` is a no-op on its PATH and
 * USER is recorded for the test to check. `--mount=type=cache` is Docker's npm cache; here npm
 * uses the machine's cache.
 */
export function runStage(stage: Stage, context: string, earlier: Map<string, StageResult>, log: (line: string) => void): StageResult {
  const root = mkdtempSync(join(tmpdir(), `cp-image-${stage.name}-`));
  const shims = join(root, '.reproduction-bin');
  mkdirSync(shims);
  writeFileSync(join(shims, 'chown'), '#!/bin/sh\nexit 0\n');
  chmodSync(join(shims, 'chown'), 0o755);
  const result: StageResult = { root, workdir: '/', env: {}, user: undefined, cmd: undefined };
  const inRoot = (path: string) => join(root, posix.resolve(result.workdir, path));
  for (const { keyword, args, flags, line } of stage.instructions) {
    if (keyword === 'WORKDIR') {
      result.workdir = posix.resolve(result.workdir, args);
      mkdirSync(inRoot('.'), { recursive: true });
    } else if (keyword === 'ENV') {
      const [name, ...value] = args.split('=');
      result.env[name] = value.join('=');
    } else if (keyword === 'COPY') {
      const parts = args.split(/\s+/);
      const dest = parts.pop()!;
      const from = flags.from ? earlier.get(flags.from) : undefined;
      if (flags.from && !from) throw new Error(`Dockerfile:${line}: no stage ${flags.from}`);
      for (const source of parts) {
        const src = from ? join(from.root, posix.resolve('/', source)) : join(context, source);
        const target = parts.length > 1 || dest.endsWith('/') ? join(inRoot(dest), posix.basename(source)) : inRoot(dest);
        const to = source === '.' ? inRoot(dest) : target;
        mkdirSync(dirname(to), { recursive: true });
        cpSync(src, to, { recursive: true });
      }
    } else if (keyword === 'RUN') {
      log(`${stage.name}: RUN ${args}`);
      const env = {
        PATH: `${shims}:${process.env.PATH ?? ''}`,
        HOME: process.env.HOME ?? tmpdir(),
        npm_config_prefer_offline: 'true',
        ...result.env,
      };
      const run = spawnSync('sh', ['-c', args], { cwd: inRoot('.'), env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      if (run.status !== 0) throw new Error(`Dockerfile:${line}: RUN ${args} failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
    } else if (keyword === 'USER') {
      result.user = args;
    } else if (keyword === 'CMD') {
      result.cmd = JSON.parse(args) as string[];
    }
  }
  return result;
}

/** Compose's variable interpolation: `${X}`, `${X:-default}`, `${X-default}`, `${X:?error}`, `$$`. */
export function interpolate(value: string, vars: Record<string, string | undefined>): string {
  return value.replace(/\$\$|\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g, (whole, name: string | undefined, op: string | undefined, arg: string) => {
    if (whole === '$$') return '$';
    const set = vars[name!];
    if (op === ':?' || op === '?') {
      if (set === undefined || (op === ':?' && set === '')) throw new Error(`${name}: ${arg}`);
      return set;
    }
    if (op === ':-') return set ? set : arg;
    if (op === '-') return set ?? arg;
    return set ?? '';
  });
}
