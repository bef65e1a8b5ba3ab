/**
 * The AI Catalog an agent node serves, per entitlement class of one bundle (ADR 0315). The
 * document is nodeCatalog's (the one builder the control plane signs with too); the signature is
 * the bundle's for the anonymous catalog (and for every class whose catalog is the same
 * document), and for another class the control plane's, asked for once on the card-signatures
 * route and verified over the catalog this node computed with its pinned keys. Without a
 * signature the catalog goes out unsigned, counted and logged, never refused.
 */
import type { Caller, NodeBundle } from '@cp/capabilities';
import {
  catalogSigningInput,
  nodeCatalog,
  verifyCatalogSignature,
  withCatalogSignature,
  type AiCatalog,
  type AiCatalogHost,
  type AiCatalogPublisher,
  type NodeCatalogParams,
  type VerificationKeys,
} from '@cp/node-protocol';
import { OncePerClass } from './once-per-class';

/** What NodeCatalogs reads of ActiveBundle's LazyCardSigning (the same terms as the cards). */
export interface CatalogSigning {
  keys: VerificationKeys;
  waitMs?: number;
  retryAfterMs?: number;
  catalogSignature?(revision: number, classKey: string): Promise<string | null>;
  onCatalogUnsigned?(classKey: string, reason: string): void;
}

/** The host and publisher of a bundle built without the catalog's parameters (the node's own configuration). */
export interface CatalogDefaults {
  host: AiCatalogHost;
  publisher: AiCatalogPublisher;
}

const LIKE_ANONYMOUS_KEPT = 4096;

export class NodeCatalogs {
  private readonly classes?: OncePerClass<string>;
  private anonymous?: { input: string; body: string };
  /** Classes whose catalog is the anonymous document (known once computed; bounded like the signed ones). */
  private readonly likeAnonymous = new Set<string>();
  private unsignedElsewhere = 0;
  private noted = false;

  constructor(
    private readonly bundle: NodeBundle,
    private readonly classKey: (caller: Caller) => string,
    private readonly signing?: CatalogSigning,
  ) {
    if (signing?.catalogSignature)
      this.classes = new OncePerClass({ ...signing, onFailure: (key, reason) => signing.onCatalogUnsigned?.(key, reason) });
  }

  get stats(): { signed: number; requested: number; unsignedServed: number } {
    const s = this.classes?.stats ?? { signed: 0, requested: 0, unsignedServed: 0 };
    return { signed: s.signed, requested: s.requested, unsignedServed: s.unsignedServed + this.unsignedElsewhere };
  }

  bodyFor(caller: Caller, defaults: CatalogDefaults): string | Promise<string> {
    const params = this.bundle.catalog;
    if (!params) {
      const updatedAt = this.bundle.generatedAt ?? this.bundle.snapshot.epoch ?? new Date(0).toISOString();
      return this.unsigned(
        nodeCatalog(this.bundle.snapshot, { ...defaults, updatedAt }, caller),
        'the bundle carries no catalog parameters',
      );
    }
    const anonymous = this.anonymousCatalog(params);
    if (caller === null) return this.anonymousBody(anonymous.body, params.signature);
    const key = this.classKey(caller);
    const ready = this.classes?.get(key);
    if (ready !== undefined) return ready;
    if (this.likeAnonymous.has(key)) return this.anonymousBody(anonymous.body, params.signature);
    const catalog = nodeCatalog(this.bundle.snapshot, params, caller);
    // A class that sees what anonymous callers see is served the bundle's signed document.
    if (catalogSigningInput(catalog) === anonymous.input) {
      if (this.likeAnonymous.size >= LIKE_ANONYMOUS_KEPT) this.likeAnonymous.clear();
      this.likeAnonymous.add(key);
      return this.anonymousBody(anonymous.body, params.signature);
    }
    const signing = this.signing;
    if (!this.classes || !signing?.catalogSignature) return this.unsigned(catalog, 'the node does not ask for catalog signatures');
    return this.classes.serve(key, () => this.signed(signing, key, catalog), JSON.stringify(catalog));
  }

  /** The anonymous catalog, computed once per bundle: signed with the bundle's signature when it has one. */
  private anonymousCatalog(params: NodeCatalogParams & { signature?: string }): { input: string; body: string } {
    if (!this.anonymous) {
      const catalog = nodeCatalog(this.bundle.snapshot, params, null);
      const input = catalogSigningInput(catalog);
      // The bundle's signature was verified over this document before the bundle was applied (verifyNodeBundle).
      this.anonymous = { input, body: JSON.stringify(params.signature ? withCatalogSignature(catalog, params.signature) : catalog) };
    }
    return this.anonymous;
  }

  private anonymousBody(body: string, signature: string | undefined): string {
    if (signature === undefined) {
      this.unsignedElsewhere++;
      this.note('the bundle carries no catalog signature');
    }
    return body;
  }

  /** The class's catalog with the control plane's signature, verified over what this node computed; throws naming why not. */
  private async signed(signing: CatalogSigning, key: string, catalog: AiCatalog): Promise<string> {
    const jws = await signing.catalogSignature!(this.bundle.revision, key);
    if (!jws) throw new Error('the control plane gave no catalog signature');
    const signed = withCatalogSignature(catalog, jws);
    const verified = await verifyCatalogSignature(signed, signing.keys);
    if (!verified.ok) throw new Error(`catalog signature ${verified.code}: ${verified.reason}`);
    return JSON.stringify(signed);
  }

  private unsigned(catalog: AiCatalog, reason: string): string {
    this.unsignedElsewhere++;
    this.note(reason);
    return JSON.stringify(catalog);
  }

  /** Logged once per bundle (counted every time): a bundle-wide reason does not change per request. */
  private note(reason: string): void {
    if (this.noted) return;
    this.noted = true;
    this.signing?.onCatalogUnsigned?.('*', `${reason} (revision ${this.bundle.revision})`);
  }
}
