/**
 * The node in its agent's fleet: register, heartbeat (with the handler inventory, issue 14) and
 * acks of what it applied or refused. Only the latest undelivered ack is kept, and retried with
 * the heartbeat: an older one says nothing the control plane still needs.
 */
import { upstreamProblem, type HandlerDeclaration, type UpstreamCardReport } from '@cp/capabilities';
import { nodeApiPaths, type AckBody } from '@cp/node-protocol';
import type { ActiveBundle } from '../active-bundle';
import type { NodeApi } from './node-api';
import type { NodeSyncLogger, RegistrationStatus } from './node-sync-types';

export class Registration {
  private state: RegistrationStatus = { ok: false, refused: false, error: 'not registered yet' };
  private pendingAck?: AckBody;
  /** A gateway node's upstream report (ADR 0275); unset: the node forwards to no upstream. */
  private upstreams?: () => UpstreamCardReport[];

  constructor(
    private readonly api: NodeApi,
    private readonly node: { nodeId: string; hostname?: string },
    private handlers: (() => HandlerDeclaration[]) | undefined,
    private readonly log: NodeSyncLogger,
  ) {}

  get nodeId(): string {
    return this.node.nodeId;
  }

  status(): RegistrationStatus {
    return { ...this.state };
  }

  /** Accepted, or refused (retrying the same request cannot help); neither: not answered yet. */
  get settled(): boolean {
    return this.state.ok || this.state.refused;
  }

  useHandlers(handlers: () => HandlerDeclaration[]): void {
    this.handlers = handlers;
  }

  useUpstreams(report: () => UpstreamCardReport[]): void {
    this.upstreams = report;
  }

  /** Registers (again): at start, and with each heartbeat until the control plane has accepted it. */
  async register(): Promise<void> {
    const answer = await this.api.send(nodeApiPaths.register, {
      nodeId: this.node.nodeId,
      hostname: this.node.hostname,
      handlers: this.inventory(),
      upstreams: this.upstreams?.(),
    });
    if (answer.ok) this.state = { ok: true, refused: false, error: null };
    else if (answer.status !== undefined) {
      const error = `POST ${nodeApiPaths.register} answered ${answer.status}: ${answer.detail}`;
      if (error !== this.state.error) this.log.warn(`this node is not registered: ${error}`);
      this.state = { ok: false, refused: true, error };
    } else this.state = { ok: false, refused: false, error: `POST ${nodeApiPaths.register} failed: ${answer.detail}` };
  }

  async heartbeat(): Promise<void> {
    if (!this.state.ok) await this.register();
    const ok = await this.api.post(nodeApiPaths.heartbeat, {
      nodeId: this.node.nodeId,
      handlers: this.inventory(),
      upstreams: this.upstreams?.(),
    });
    if (ok && this.pendingAck) await this.ack(this.pendingAck);
  }

  /** The last heartbeat: no longer a live node of the agent, so plans stop waiting for (or refusing because of) its code. */
  async leave(): Promise<void> {
    await this.api.post(nodeApiPaths.heartbeat, {
      nodeId: this.node.nodeId,
      handlers: this.inventory(),
      upstreams: this.upstreams?.(),
      stopping: true,
    });
  }

  /** Undelivered acks are kept (the latest only) and retried with the heartbeat. */
  async ack(body: AckBody): Promise<void> {
    this.pendingAck = body;
    if (await this.api.post(nodeApiPaths.ack, body)) {
      if (this.pendingAck === body) this.pendingAck = undefined;
    }
  }

  /**
   * Capabilities of `bundle` this node cannot serve: a handler it lacks (without an inventory the
   * node cannot tell, and claims nothing), or an upstream that is not a gateway's or whose card did
   * not answer or no longer lists the skill (the core's rule, ADR 0275).
   */
  unservableOf(bundle: ActiveBundle): string[] {
    const inventory = this.inventory();
    const report = this.upstreams?.();
    const have = inventory && new Set(inventory.map((h) => h.id));
    return bundle.policy.entries
      .filter((e) =>
        e.upstream ? upstreamProblem({ id: e.capabilityId, upstream: e.upstream }, report) !== undefined : have && !have.has(e.handler),
      )
      .map((e) => e.capabilityId);
  }

  private inventory(): HandlerDeclaration[] | undefined {
    return this.handlers?.();
  }
}
