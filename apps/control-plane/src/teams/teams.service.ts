import { Injectable } from '@nestjs/common';
import { z } from 'zod';
import type { AdminPrincipal } from '@cp/auth';
import { AuditWriter } from '@cp/db';
import { AccessPolicy } from '../auth/access-policy';
import { notFound, validateInput } from '../common/errors';
import { decodeCursor, pageSize, toPage, type Page, type PageInput } from '../common/graphql/pagination';
import type { TeamInput, TeamModel } from './dto/team.model';
import { TeamError, TeamErrorCode } from './teams.errors';
import { TeamsRepository } from './teams.repository';

// The same slug rule as the database's Team_id_slug_check, so bad input is named here first.
const teamSchema = z.object({
  id: z
    .string()
    .regex(/^[a-z][a-z0-9]*(-[a-z0-9]+)*$/, 'must be a lowercase slug (letters, digits, single "-")')
    .max(64),
  name: z.string().trim().min(1, 'is required').max(200),
});

/** Platform admins create and rename teams; a team admin reads only its own teams, like their agents. */
@Injectable()
export class TeamsService {
  constructor(
    private readonly teams: TeamsRepository,
    private readonly access: AccessPolicy,
    private readonly audit: AuditWriter,
  ) {}

  async get(principal: AdminPrincipal, id: string): Promise<TeamModel> {
    const team = await this.teams.find(id);
    if (!team || !this.access.canRead(principal, id)) throw notFound('team', id);
    return team;
  }

  async list(principal: AdminPrincipal, page: PageInput | undefined): Promise<Page<TeamModel>> {
    const size = pageSize(page);
    const after = decodeCursor(page?.after)?.[0];
    const rows = await this.teams.list(this.access.readableTeams(principal), after === undefined ? undefined : String(after), size + 1);
    return toPage(rows, size, (t) => [t.id]);
  }

  async create(principal: AdminPrincipal, input: TeamInput): Promise<TeamModel> {
    const team = validateInput(teamSchema, input);
    if (await this.teams.find(team.id))
      throw new TeamError(TeamErrorCode.AlreadyExists, `team "${team.id}" already exists`, { id: team.id });
    return this.teams.save(team, 'create', (tx) =>
      this.audit.record(tx, principal.subject, [{ action: 'team.create', targetType: 'team', targetId: team.id, after: team }]),
    );
  }

  async rename(principal: AdminPrincipal, input: TeamInput): Promise<TeamModel> {
    const team = validateInput(teamSchema, input);
    const before = await this.get(principal, team.id);
    return this.teams.save(team, 'update', (tx) =>
      this.audit.record(tx, principal.subject, [
        { action: 'team.update', targetType: 'team', targetId: team.id, before: { id: before.id, name: before.name }, after: team },
      ]),
    );
  }
}
