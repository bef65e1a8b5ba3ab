import { Injectable, Logger, type OnModuleDestroy, type OnModuleInit } from '@nestjs/common';
import { keyRingFromConfig, type KeyRing, type PublicJwk, type SigningKey } from '@cp/auth';
import { InjectConfig, type AppConfig } from '@cp/common';

/**
 * The key ring of this process (control plane or worker: both build and sign bundles), loaded at
 * boot (production without real keys refuses to start, ADR 0130) and, when it comes from a file,
 * re-read every SIGNING_KEYS_RELOAD_MS so a rotation needs no restart. A file that stops parsing
 * keeps the keys in use and logs why.
 */
@Injectable()
export class SigningKeys implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger('SigningKeys');
  private readonly ring: KeyRing;
  private timer?: NodeJS.Timeout;
  private lastError?: string;

  constructor(@InjectConfig() private readonly config: AppConfig) {
    this.ring = keyRingFromConfig(config);
  }

  onModuleInit(): void {
    this.logger.log(`signing with key "${this.ring.active().kid}"; publishing ${this.ring.list().length} key(s)`);
    if (this.ring.source.kind !== 'file') return;
    this.timer = setInterval(() => this.reload(), this.config.SIGNING_KEYS_RELOAD_MS);
    this.timer.unref();
  }

  onModuleDestroy(): void {
    clearInterval(this.timer);
  }

  /** Re-reads the key file if it changed; true when the keys changed. */
  reload(): boolean {
    try {
      const changed = this.ring.reload();
      this.lastError = undefined;
      if (changed)
        this.logger.log(
          `key ring changed: signing with "${this.ring.active().kid}", publishing ${this.ring
            .list()
            .map((k) => `${k.kid} (${k.state})`)
            .join(', ')}`,
        );
      return changed;
    } catch (error) {
      const message = (error as Error).message;
      if (message !== this.lastError) this.logger.error(`key ring not reloaded, keeping the keys in use: ${message}`);
      this.lastError = message;
      return false;
    }
  }

  active(): SigningKey {
    return this.ring.active();
  }

  jwks(): { keys: PublicJwk[] } {
    return this.ring.jwks();
  }

  keyRing(): KeyRing {
    return this.ring;
  }
}
