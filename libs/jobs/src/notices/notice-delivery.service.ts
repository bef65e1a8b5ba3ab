import { Injectable } from '@nestjs/common';
import { Webhook } from 'standardwebhooks';
import { Clock, InjectConfig, safeFetch, WebhookError, WebhookErrorCode, type AppConfig, type WebhookPolicy } from '@cp/common';
import { NoticesRepository } from './notices.repository';

/** `in-progress`: another delivery of the notice holds it right now (it sends, or releases it on failure). */
export type DeliveryOutcome = 'delivered' | 'already-done' | 'in-progress' | 'dead';

/** How long past the request timeout a delivery's claim outlives it (the writes after the response). */
const CLAIM_MARGIN_MS = 30_000;

/** Thrown to make BullMQ retry the delivery job (its backoff), after the failure is recorded. */
export class RetryableDeliveryError extends Error {}

/** The webhook policy of notices: the SSRF rules of push notifications, with the configured allow-list. */
export function noticeWebhookPolicy(config: Pick<AppConfig, 'DEPRECATION_NOTICE_ALLOW' | 'DEPRECATION_NOTICE_TIMEOUT_MS'>): WebhookPolicy {
  return { allow: config.DEPRECATION_NOTICE_ALLOW, timeoutMs: config.DEPRECATION_NOTICE_TIMEOUT_MS, maxRedirects: 0 };
}

/**
 * Delivers one notice: POST of its payload to the tenant's endpoint, signed the Standard Webhooks
 * way (`webhook-id` = the notice id, so a receiver can drop a repeat; `webhook-timestamp`, the
 * wall time of the attempt; `webhook-signature` = v1 HMAC-SHA256 with the endpoint's secret), through the SSRF-safe
 * `safeFetch`. Idempotent: only a pending notice is sent, each attempt claims it first (one
 * delivery at a time, until the request timeout plus a margin), and it becomes delivered once.
 */
@Injectable()
export class NoticeDeliveryService {
  constructor(
    private readonly notices: NoticesRepository,
    private readonly clock: Clock,
    @InjectConfig() private readonly config: AppConfig,
  ) {}

  /** `final`: this is the last attempt BullMQ will make; a failure then dead-letters the notice. */
  async deliver(noticeId: string, final: boolean): Promise<DeliveryOutcome> {
    const notice = await this.notices.find(noticeId);
    // A redelivered job for a notice already delivered (or dead-lettered) sends nothing.
    if (!notice || notice.status !== 'pending') return 'already-done';
    // Claimed before the request: a job redelivered while this one runs sends nothing.
    const attempts = await this.notices.claimAttempt(noticeId, this.config.DEPRECATION_NOTICE_TIMEOUT_MS + CLAIM_MARGIN_MS);
    if (attempts === null) return 'in-progress';
    const endpoint = await this.notices.endpoint(notice.tenantId);
    if (!endpoint) {
      await this.notices.recordFailure(noticeId, attempts, `tenant ${notice.tenantId} has no notification endpoint`, true);
      return 'dead';
    }
    const body = JSON.stringify(notice.payload);
    // The signature's timestamp is the wall time of this attempt, not the lifecycle clock: the
    // receiver checks it against its own clock (Standard Webhooks rejects one 5 minutes off).
    const at = new Date();
    const headers = {
      'content-type': 'application/json',
      'webhook-id': notice.id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(endpoint.secret).sign(notice.id, at, body),
    };
    let failure: string;
    let retryable = true;
    try {
      const response = await safeFetch(endpoint.url, { method: 'POST', headers, body }, noticeWebhookPolicy(this.config));
      if (response.status >= 200 && response.status < 300) {
        await this.notices.markDelivered(noticeId, this.clock.now(), attempts);
        return 'delivered';
      }
      failure = `the endpoint answered HTTP ${response.status}`;
      // 4xx other than 408/429 will not change on a retry.
      retryable = response.status >= 500 || response.status === 408 || response.status === 429;
    } catch (error) {
      failure = error instanceof WebhookError ? `${error.code}: ${error.message}` : `delivery failed: ${(error as Error).message}`;
      retryable = !(error instanceof WebhookError) || error.code === WebhookErrorCode.Timeout || error.code === WebhookErrorCode.Network;
    }
    const dead = final || !retryable;
    await this.notices.recordFailure(noticeId, attempts, failure, dead);
    if (dead) return 'dead';
    throw new RetryableDeliveryError(`notice ${noticeId}: ${failure} (attempt ${attempts})`);
  }
}
