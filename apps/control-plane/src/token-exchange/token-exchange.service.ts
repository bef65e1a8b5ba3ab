import { Injectable, Logger } from '@nestjs/common';
import { a2aVerifier, AuthError, tokenSigner, type JwtVerifier, type NodePrincipal, type TokenSigner } from '@cp/auth';
import { downscopedScopes, isEntitled } from '@cp/capabilities';
import { InjectConfig, type AppConfig } from '@cp/common';
import { tokenExchangeSchema, type TokenExchangeResult } from './dto/token-exchange.schema';
import { TokenExchangeError, TokenExchangeErrorCode } from './token-exchange.errors';
import { ToolRepository } from './tool.repository';

/** Tool tokens live at most this long (seconds). */
export const TOOL_TOKEN_TTL_SECONDS = 300;

/**
 * Token exchange for the node's tool gateway (no confused deputy): a node presents its own JWT
 * plus the CALLER's a2a token; the answer is a short-lived `tool` token carrying only the scopes
 * the caller AND the tool both have, pinned to the caller's tenant, with act_sub = the caller and
 * the capability being served. Refused unless the caller is entitled to that capability of the
 * node's own agent (same entitlement function as the cards), and the tool is registered for it.
 */
@Injectable()
export class TokenExchangeService {
  private readonly logger = new Logger('TokenExchange');
  private readonly callerVerifier: JwtVerifier;
  private readonly signer: TokenSigner;

  constructor(
    private readonly tools: ToolRepository,
    @InjectConfig() private readonly config: AppConfig,
  ) {
    this.callerVerifier = a2aVerifier(config);
    this.signer = tokenSigner(config);
  }

  async exchange(node: NodePrincipal, rawBody: unknown): Promise<TokenExchangeResult> {
    const parsed = tokenExchangeSchema.safeParse(rawBody);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new TokenExchangeError(TokenExchangeErrorCode.InvalidBody, `${issue.path.join('.') || 'body'}: ${issue.message}`);
    }
    const body = parsed.data;
    const caller = await this.callerVerifier.verify(body.subjectToken, 'a2a').catch((error: unknown) => {
      const reason = error instanceof AuthError ? error.message : 'it does not verify';
      throw new TokenExchangeError(TokenExchangeErrorCode.SubjectTokenInvalid, `the subject token is not a valid a2a token: ${reason}`);
    });
    const tool = await this.tools.tool(node.agentId, body.tool);
    if (!tool) throw new TokenExchangeError(TokenExchangeErrorCode.UnknownTool, `agent "${node.agentId}" has no tool named "${body.tool}"`);
    const capability = await this.tools.capability(node.agentId, body.capabilityId);
    const who = { principal: caller.subject, tenant: caller.tenant, scopes: caller.scopes };
    // Unknown and not-entitled capabilities answer alike.
    if (!capability || !isEntitled(capability.manifest, who, { previewTenants: capability.previewTenants })) {
      throw new TokenExchangeError(
        TokenExchangeErrorCode.CapabilityNotEntitled,
        `the caller may not use capability "${body.capabilityId}" of agent "${node.agentId}"`,
      );
    }
    const scopes = downscopedScopes(caller.scopes, tool.scopes);
    const accessToken = this.signer.sign({
      use: 'tool',
      subject: node.subject,
      audience: tool.audience,
      issuer: this.config.JWT_ISSUER,
      expiresIn: TOOL_TOKEN_TTL_SECONDS,
      claims: {
        tenant: caller.tenant,
        scope: scopes.join(' '),
        tool: tool.name,
        capability: body.capabilityId,
        act_sub: caller.subject,
        agent_id: node.agentId,
      },
    });
    this.logger.log(
      {
        agentId: node.agentId,
        node: node.subject,
        principal: caller.subject,
        tenant: caller.tenant,
        tool: tool.name,
        capability: body.capabilityId,
        scopes,
      },
      'tool token issued',
    );
    return {
      accessToken,
      tokenType: 'Bearer',
      issuedTokenType: 'urn:ietf:params:oauth:token-type:jwt',
      expiresIn: TOOL_TOKEN_TTL_SECONDS,
      scopes,
      tool: tool.name,
    };
  }
}
