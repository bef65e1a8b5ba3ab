import { Injectable } from '@nestjs/common';
import type { AdminPrincipal } from '@cp/auth';
import { RegistryWriter } from '@cp/db';
import { AgentsService } from '../agents/agents.service';
import { InputValidationError, notFound } from '../common/errors';
import { ServabilityGate } from '../node-inventory/servability-gate';
import type { PreviewOptInChangeModel, PreviewOptInInput, PreviewOptInModel } from './dto/preview-opt-in.model';
import { PreviewOptInError, PreviewOptInErrorCode } from './preview-opt-ins.errors';
import { PreviewOptInsRepository } from './preview-opt-ins.repository';

/** An opt-in changes what the agent's previews show to a tenant, so it is a registry change of that agent (revision + outbox + audit). */
@Injectable()
export class PreviewOptInsService {
  constructor(
    private readonly optIns: PreviewOptInsRepository,
    private readonly agents: AgentsService,
    private readonly writer: RegistryWriter,
    private readonly servability: ServabilityGate,
  ) {}

  async list(principal: AdminPrincipal, agentId: string): Promise<PreviewOptInModel[]> {
    await this.agents.get(principal, agentId);
    return this.optIns.list(agentId);
  }

  async create(principal: AdminPrincipal, input: PreviewOptInInput): Promise<PreviewOptInChangeModel> {
    await this.agents.getForWrite(principal, input.agentId);
    if (!(await this.optIns.tenantExists(input.tenantId))) throw notFound('tenant', input.tenantId);
    if (await this.optIns.find(input.agentId, input.tenantId)) {
      throw new PreviewOptInError(
        PreviewOptInErrorCode.AlreadyOptedIn,
        `tenant "${input.tenantId}" is already opted in to ${input.agentId}'s previews`,
      );
    }
    const unserved = await this.servability.optInIssues(input.agentId, input.tenantId);
    if (unserved.length) throw new InputValidationError(unserved);
    const { result, revision } = await this.writer.change(
      {
        agentId: input.agentId,
        expectedRevision: input.expectedRevision,
        actor: principal.subject,
        summary: `preview opt-in ${input.tenantId}`,
      },
      async (tx) => ({
        result: await this.optIns.create(tx, input.agentId, input.tenantId),
        audit: [
          {
            action: 'preview-opt-in.create',
            targetType: 'preview-opt-in',
            targetId: `${input.agentId}/${input.tenantId}`,
            after: { agentId: input.agentId, tenantId: input.tenantId },
          },
        ],
      }),
    );
    return { optIn: result, revision };
  }

  async delete(principal: AdminPrincipal, input: PreviewOptInInput): Promise<PreviewOptInChangeModel> {
    await this.agents.getForWrite(principal, input.agentId);
    if (!(await this.optIns.find(input.agentId, input.tenantId))) throw notFound('preview opt-in', `${input.agentId}/${input.tenantId}`);
    const { result, revision } = await this.writer.change(
      {
        agentId: input.agentId,
        expectedRevision: input.expectedRevision,
        actor: principal.subject,
        summary: `preview opt-out ${input.tenantId}`,
      },
      async (tx) => ({
        result: await this.optIns.delete(tx, input.agentId, input.tenantId),
        audit: [
          {
            action: 'preview-opt-in.delete',
            targetType: 'preview-opt-in',
            targetId: `${input.agentId}/${input.tenantId}`,
            before: { agentId: input.agentId, tenantId: input.tenantId },
          },
        ],
      }),
    );
    return { optIn: result, revision };
  }
}
