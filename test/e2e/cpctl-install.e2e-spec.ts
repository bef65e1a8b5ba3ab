/**
 * cpctl installs like a CLI (ADR 113): `npm ci` links the workspace package's `bin` into
 * node_modules/.bin, so `npx cpctl` runs it without fetching anything, and a global install of
 * the folder gives a `cpctl` on the PATH that works from any directory.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readlinkSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { financeAgentExample } from '@cp/capabilities';
import { Workspace } from '../support/cpctl-harness';

const REPO = join(__dirname, '..', '..');
const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), CPCTL_FROM_SOURCE: '1' };

describe('cpctl as an installed command', () => {
  const workspace = new Workspace();
  let valid: string;
  let invalid: string;

  beforeAll(() => {
    const { manifests } = financeAgentExample();
    valid = workspace.manifestDir('valid', manifests);
    invalid = workspace.manifestDir('invalid', [{ ...manifests[0], handler: '' }]);
  });
  afterAll(() => workspace.remove());

  it('is linked into node_modules/.bin by npm ci, pointing at the workspace package', () => {
    const link = join(REPO, 'node_modules', '.bin', 'cpctl');
    expect(readlinkSync(link)).toBe('../cpctl/bin/cpctl.cjs');
    expect(realpathSync(link)).toBe(join(REPO, 'apps', 'cpctl', 'bin', 'cpctl.cjs'));
  });

  it('runs through npx from the project root without installing anything', () => {
    // --no: npx must not fall back to downloading a package named cpctl.
    const ok = spawnSync('npx', ['--no', 'cpctl', 'validate', valid], { cwd: REPO, env, encoding: 'utf8' });
    expect([ok.status, ok.stderr]).toEqual([0, '']);
    expect(ok.stdout).toContain('2 manifest(s) valid');
    const bad = spawnSync('npx', ['--no', 'cpctl', 'validate', invalid], { cwd: REPO, env, encoding: 'utf8' });
    expect(bad.status).toBe(1);
    expect(bad.stdout + bad.stderr).toMatch(/handler/);
  });

  it('installs globally (npm install -g ./apps/cpctl) and runs from any directory', () => {
    const prefix = mkdtempSync(join(tmpdir(), 'cpctl-global-'));
    try {
      const install = spawnSync(
        'npm',
        ['install', '-g', '--offline', '--no-audit', '--no-fund', '--prefix', prefix, join(REPO, 'apps', 'cpctl')],
        {
          cwd: prefix,
          env,
          encoding: 'utf8',
        },
      );
      expect([install.status, install.stderr]).toEqual([0, expect.any(String)]);
      const cpctl = join(prefix, 'bin', 'cpctl');
      const version = spawnSync(cpctl, ['--version'], { cwd: prefix, env, encoding: 'utf8' });
      expect([version.status, version.stdout.trim()]).toEqual([0, '0.1.0']);
      const bad = spawnSync(cpctl, ['validate', invalid], { cwd: prefix, env, encoding: 'utf8' });
      expect(bad.status).toBe(1);
    } finally {
      rmSync(prefix, { recursive: true, force: true });
    }
  }, 60_000);
});
