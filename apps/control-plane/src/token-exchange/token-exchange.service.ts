import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { Registry } from 'prom-client';
import { a2aVerifier, AuthError, toolTokenSigner, type JwtVerifier, type NodePrincipal, type TokenSigner } from '@cp/auth';
import type { CapabilityManifest } from '@cp/capabilities';
import { downscopedScopes, isEntitled, upstreamAudience, upstreamScopes } from '@cp/capabilities';
import { activeSpan, currentTraceId, InjectConfig, MetricsRegistryToken, serverCounter, type AppConfig } from '@cp/common';
import { NodeHttpError } from '../node-auth/node-http-error';
import { tokenExchangeSchema, type TokenExchangeResult } from '@cp/node-protocol';
import { SigningKeys } from '@cp/sync';
import { parseNodeBody } from '../node-auth/parse-node-body';
import { TokenExchangeError, TokenExchangeErrorCode } from './token-exchange.errors';
import { ToolRepository } from './tool.repository';

/** Tool tokens live at most this long (seconds; JWT_MAX_LIFETIME_TOOL_SECONDS lowers it). */
export const TOOL_TOKEN_TTL_SECONDS = 300;

/**
 * Token exchange for the node's tool gateway (no confused deputy): a node presents its own JWT
 * plus the CALLER's a2a token (whose audience must name the node's own agent); the answer is a
 * short-lived `tool` token carrying only the scopes the caller AND the tool both have, pinned to
 * the caller's tenant, with act_sub = the caller and the capability being served, expiring no later
 * than the caller's token. Refused unless the caller is entitled to that capability of the node's
 * own agent (same entitlement function as the cards) and the capability's manifest lists the tool;
 * a tool the capability may not use answers exactly like a tool that does not exist.
 */
@Injectable()
export class TokenExchangeService {
  private readonly logger = new Logger('TokenExchange');
  private readonly callerVerifiers = new Map<string, JwtVerifier>();
  private readonly signer: TokenSigner;

  constructor(
    private readonly tools: ToolRepository,
    @InjectConfig() private readonly config: AppConfig,
    keys: SigningKeys,
    @Optional() @Inject(MetricsRegistryToken) private readonly metrics?: Registry,
  ) {
    // ES256 with the key ring's active key: tools verify with the public JWKS and cannot mint (ADR 0130).
    this.signer = toolTokenSigner(keys.keyRing());
  }

  /** The verifier of one agent's a2a tokens (its own audience); agents are few, so kept. */
  private callerVerifier(agentId: string): JwtVerifier {
    let verifier = this.callerVerifiers.get(agentId);
    if (!verifier) {
      verifier = a2aVerifier(this.config, agentId);
      this.callerVerifiers.set(agentId, verifier);
    }
    return verifier;
  }

  /** Never outlive the caller's token: exp = min(now + TTL, caller exp). */
  private lifetime(callerExpiresAt: number): { issuedAt: number; expiresIn: number } {
    const issuedAt = Math.floor(Date.now() / 1000);
    const ttl = Math.min(TOOL_TOKEN_TTL_SECONDS, this.config.JWT_MAX_LIFETIME_TOOL_SECONDS);
    const expiresIn = Math.min(ttl, callerExpiresAt - issuedAt);
    // Accepted within the clock skew but already past its exp here: nothing left to hand on.
    if (expiresIn <= 0) {
      throw new TokenExchangeError(
        TokenExchangeErrorCode.SubjectTokenInvalid,
        'the subject token is not a valid a2a token: it has expired',
      );
    }
    return { issuedAt, expiresIn };
  }

  /**
   * The token a gateway node presents to the capability's upstream agent (ADR 0231): subject the
   * caller, `act.sub` the node, audience the upstream as the REGISTRY's manifest names it, scopes
   * the caller's ∩ what the capability may use upstream, never outliving the caller's token. A
   * capability without an upstream answers like an unknown tool.
   */
  private async issueUpstream(
    node: NodePrincipal,
    caller: { subject: string; tenant: string; scopes: string[]; expiresAt: number },
    manifest: CapabilityManifest,
    capabilityId: string,
  ): Promise<TokenExchangeResult> {
    if (!manifest.upstream)
      throw new TokenExchangeError(TokenExchangeErrorCode.UnknownTool, `capability "${capabilityId}" has no upstream agent`);
    const audience = upstreamAudience(manifest.upstream);
    const scopes = downscopedScopes(caller.scopes, upstreamScopes(manifest.upstream, manifest.requiresScopes));
    const { issuedAt, expiresIn } = this.lifetime(caller.expiresAt);
    const accessToken = this.signer.sign({
      use: 'upstream',
      subject: caller.subject,
      audience,
      issuer: this.config.JWT_ISSUER,
      issuedAt,
      expiresIn,
      claims: {
        tenant: caller.tenant,
        scope: scopes.join(' '),
        capability: capabilityId,
        agent_id: node.agentId,
        act: { sub: node.subject },
      },
    });
    const chain = {
      principal: caller.subject,
      tenant: caller.tenant,
      agentId: node.agentId,
      node: node.subject,
      capabilityId,
      tool: `upstream:${audience}`,
      scopes,
    };
    await this.tools.recordIssued(node.subject, chain, 'upstream-token.issue');
    activeSpan()?.setAttributes({ 'a2a.capability.id': capabilityId, 'a2a.tenant': caller.tenant });
    this.logger.log({ ...chain, expiresIn, traceId: currentTraceId() }, 'upstream token issued');
    return { accessToken, tokenType: 'Bearer', issuedTokenType: 'urn:ietf:params:oauth:token-type:jwt', expiresIn, scopes, audience };
  }

  /** Counted by outcome (issued, or the refusal code); the span gets the outcome, never a token. */
  async exchange(node: NodePrincipal, rawBody: unknown): Promise<TokenExchangeResult> {
    let outcome = 'failed';
    try {
      const result = await this.issue(node, rawBody);
      outcome = 'issued';
      return result;
    } catch (error) {
      if (error instanceof NodeHttpError) outcome = (error as NodeHttpError<string>).code;
      throw error;
    } finally {
      if (this.metrics) serverCounter(this.metrics, 'tokenExchanges').labels(outcome).inc();
      activeSpan()?.setAttributes({ 'cp.token_exchange.outcome': outcome, 'cp.agent.id': node.agentId });
    }
  }

  private async issue(node: NodePrincipal, rawBody: unknown): Promise<TokenExchangeResult> {
    const body = parseNodeBody(tokenExchangeSchema, rawBody, 'token exchange');
    const caller = await this.callerVerifier(node.agentId)
      .verify(body.subjectToken, 'a2a')
      .catch((error: unknown) => {
        const reason = error instanceof AuthError ? error.message : 'it does not verify';
        throw new TokenExchangeError(TokenExchangeErrorCode.SubjectTokenInvalid, `the subject token is not a valid a2a token: ${reason}`);
      });
    const capability = await this.tools.capability(node.agentId, body.capabilityId);
    const who = { principal: caller.subject, tenant: caller.tenant, scopes: caller.scopes };
    // Unknown and not-entitled capabilities answer alike.
    if (!capability || !isEntitled(capability.manifest, who, { previewTenants: capability.previewTenants })) {
      throw new TokenExchangeError(
        TokenExchangeErrorCode.CapabilityNotEntitled,
        `the caller may not use capability "${body.capabilityId}" of agent "${node.agentId}"`,
      );
    }
    if (body.kind === 'upstream') return this.issueUpstream(node, caller, capability.manifest, body.capabilityId);
    // A tool the capability may not use answers exactly like a tool that does not exist.
    const tool = body.tool && capability.manifest.tools?.includes(body.tool) ? await this.tools.tool(node.agentId, body.tool) : null;
    if (!tool) {
      throw new TokenExchangeError(
        TokenExchangeErrorCode.UnknownTool,
        `capability "${body.capabilityId}" has no tool named "${body.tool ?? ''}"`,
      );
    }
    const scopes = downscopedScopes(caller.scopes, tool.scopes);
    const { issuedAt, expiresIn } = this.lifetime(caller.expiresAt);
    const accessToken = this.signer.sign({
      use: 'tool',
      subject: node.subject,
      audience: tool.audience,
      issuer: this.config.JWT_ISSUER,
      issuedAt,
      expiresIn,
      claims: {
        tenant: caller.tenant,
        scope: scopes.join(' '),
        tool: tool.name,
        capability: body.capabilityId,
        act_sub: caller.subject,
        agent_id: node.agentId,
      },
    });
    const chain = {
      principal: caller.subject,
      tenant: caller.tenant,
      agentId: node.agentId,
      node: node.subject,
      capabilityId: body.capabilityId,
      tool: tool.name,
      scopes,
    };
    // Audited before the token leaves: a token nobody can trace back is never issued.
    await this.tools.recordIssued(node.subject, chain);
    activeSpan()?.setAttributes({ 'a2a.capability.id': body.capabilityId, 'a2a.tenant': caller.tenant, 'tool.name': tool.name });
    this.logger.log({ ...chain, expiresIn, traceId: currentTraceId() }, 'tool token issued');
    return {
      accessToken,
      tokenType: 'Bearer',
      issuedTokenType: 'urn:ietf:params:oauth:token-type:jwt',
      expiresIn,
      scopes,
      tool: tool.name,
    };
  }
}
