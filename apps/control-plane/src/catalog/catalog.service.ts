import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import type { Caller, RegistrySnapshot } from '@cp/capabilities';
import { InjectConfig, type AppConfig } from '@cp/common';
import { RegistrySnapshotRepository } from '@cp/db';
import { catalogIdentity, catalogSigningInput, fleetCatalog, signCatalog, type AiCatalog, type CatalogAgent } from '@cp/node-protocol';
import { SigningKeys } from '@cp/sync';
import { CatalogRepository } from './catalog.repository';

export interface ServedCatalog {
  etag: string;
  /** The signed document's bytes, signed once per (content, key): ECDSA signatures are randomized. */
  body: () => Promise<string>;
}

const SIGNED_MEMO_LIMIT = 256;

/**
 * The fleet's AI Catalog for one caller (ADR 0250): every agent's snapshot (kept per revision),
 * the core's fleetCatalog, and a signature by the key ring's active key. Every caller goes through
 * exactly these steps over every agent; what differs is only which entries the core keeps.
 */
@Injectable()
export class CatalogService {
  private readonly snapshots = new Map<string, RegistrySnapshot>();
  private readonly signed = new Map<string, Promise<string>>();

  constructor(
    private readonly repository: CatalogRepository,
    private readonly registry: RegistrySnapshotRepository,
    private readonly keys: SigningKeys,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** The unsigned catalog (also what `cpctl export --ai-catalog` receives, signed). */
  async catalogFor(caller: Caller): Promise<AiCatalog> {
    const rows = await this.repository.agents();
    const agents: CatalogAgent[] = [];
    for (const row of rows) {
      const snapshot = await this.snapshotAt(row.id, row.revision);
      if (snapshot) agents.push({ snapshot, teamId: row.teamId, updatedAt: row.updatedAt.toISOString() });
    }
    // The same host and publisher the nodes' catalogs name (through their bundles, ADR 0315).
    const { host, publisher } = catalogIdentity(this.config);
    return fleetCatalog(host, agents, caller, publisher);
  }

  async servedFor(caller: Caller): Promise<ServedCatalog> {
    const catalog = await this.catalogFor(caller);
    const key = this.keys.active();
    // The ETag names the content and the key that signs it, so it is known before signing (304s sign nothing).
    const etag = `"${createHash('sha256').update(key.kid).update('\n').update(catalogSigningInput(catalog)).digest('base64url').slice(0, 32)}"`;
    return { etag, body: () => this.signedBody(etag, catalog) };
  }

  private signedBody(etag: string, catalog: AiCatalog): Promise<string> {
    let body = this.signed.get(etag);
    if (!body) {
      body = signCatalog(catalog, this.keys.active()).then((c) => JSON.stringify(c));
      if (this.signed.size >= SIGNED_MEMO_LIMIT) this.signed.delete(this.signed.keys().next().value!);
      this.signed.set(etag, body);
      body.catch(() => this.signed.delete(etag));
    }
    return body;
  }

  private async snapshotAt(agentId: string, revision: number): Promise<RegistrySnapshot | null> {
    const known = this.snapshots.get(agentId);
    if (known && known.revision === revision) return known;
    const snapshot = await this.registry.snapshot(agentId);
    if (snapshot) this.snapshots.set(agentId, snapshot);
    else this.snapshots.delete(agentId);
    return snapshot;
  }
}
