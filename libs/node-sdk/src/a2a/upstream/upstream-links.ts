/**
 * Node task → upstream task (ADR 0230), kept while the upstream task can still be continued
 * (input-required) or canceled. In memory and bounded: a continuation or cancel that reaches
 * another replica than the one that ran the task finds no link (the continuation then starts a
 * new upstream task; a cancel ends the node's task only). The oldest links go first when full.
 */
export interface UpstreamLink {
  taskId: string;
  contextId: string;
}

export class UpstreamLinks {
  private readonly links = new Map<string, UpstreamLink>();

  constructor(private readonly max = 10_000) {}

  get(nodeTaskId: string): UpstreamLink | undefined {
    return this.links.get(nodeTaskId);
  }

  set(nodeTaskId: string, link: UpstreamLink): void {
    this.links.delete(nodeTaskId);
    this.links.set(nodeTaskId, link);
    if (this.links.size > this.max) this.links.delete(this.links.keys().next().value!);
  }

  delete(nodeTaskId: string): void {
    this.links.delete(nodeTaskId);
  }

  get size(): number {
    return this.links.size;
  }
}
