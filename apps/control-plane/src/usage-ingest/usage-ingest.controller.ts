import { Body, Controller, Headers, HttpCode, Inject, Post, UseFilters } from '@nestjs/common';
import { bearerToken, controlPlaneVerifier, type JwtVerifier } from '@cp/auth';
import { AppConfigToken, type AppConfig } from '@cp/common';
import { UsageIngestFilter } from './usage-ingest.filter';
import { UsageIngestService, type IngestResult } from './usage-ingest.service';

/** Agent nodes report their call counts here, one batch per window (node JWT). */
@Controller('node/v1')
@UseFilters(UsageIngestFilter)
export class UsageIngestController {
  private readonly verifier: JwtVerifier;

  constructor(
    private readonly usage: UsageIngestService,
    @Inject(AppConfigToken) config: AppConfig,
  ) {
    this.verifier = controlPlaneVerifier(config);
  }

  @Post('usage')
  @HttpCode(202)
  async report(@Headers('authorization') authorization: string | undefined, @Body() body: unknown): Promise<IngestResult> {
    const principal = await this.verifier.verify(bearerToken(authorization), 'node');
    return this.usage.ingest(principal, body);
  }
}
