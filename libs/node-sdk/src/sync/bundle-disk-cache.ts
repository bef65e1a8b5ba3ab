/**
 * The last good bundle on disk, `<cacheDir>/<agentId>.bundle.json`: a node restarted while the
 * control plane is down starts serving from it (checked and verified like any other bundle).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError } from './node-api';
import type { NodeSyncLogger } from './node-sync-types';

export class BundleDiskCache {
  readonly file: string;
  /** cacheDir was created (mkdir once, not per bundle; again after a write failed). */
  private dirMade = false;

  constructor(
    private readonly dir: string,
    agentId: string,
    private readonly log: NodeSyncLogger,
  ) {
    this.file = join(dir, `${agentId}.bundle.json`);
  }

  /** The text on disk; undefined when there is none (or it cannot be read, which is logged). */
  async read(): Promise<string | undefined> {
    try {
      return await readFile(this.file, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.log.warn(`cannot read ${this.file}: ${describeError(error)}`);
      return undefined;
    }
  }

  /** temp file + fsync + rename: a crash leaves either the old file or the new one, never half. A failure is logged. */
  async write(text: string): Promise<void> {
    const tmp = `${this.file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      if (!this.dirMade) await mkdir(this.dir, { recursive: true });
      this.dirMade = true;
      const handle = await open(tmp, 'w');
      try {
        await handle.writeFile(text, 'utf8');
        await handle.sync();
      } finally {
        await handle.close();
      }
      await rename(tmp, this.file);
    } catch (error) {
      this.dirMade = false;
      this.log.warn(`cannot persist the bundle to ${this.file}: ${describeError(error)}`);
      await rm(tmp, { force: true }).catch(() => undefined);
    }
  }
}
