/**
 * Takes a provider out of rotation after repeated failures, for a cooldown, then lets exactly one
 * trial request through: its success closes the breaker, its failure opens it again. Counted per
 * provider, across all its models, in this process.
 */
import type { BreakerPolicy } from '../providers/upstream/provider-config';

export type BreakerStatus = 'healthy' | 'cooling_down' | 'trial';

export class CircuitBreaker {
  private consecutiveFailures = 0;
  private openUntil = 0;
  private trialRunning = false;

  constructor(
    private readonly policy: BreakerPolicy,
    private readonly now: () => number = Date.now,
  ) {}

  /** Whether a request may go to the provider now; a half-open breaker admits one trial. */
  tryAcquire(): boolean {
    if (this.openUntil === 0) return true;
    if (this.now() < this.openUntil || this.trialRunning) return false;
    this.trialRunning = true;
    return true;
  }

  succeeded(): void {
    this.consecutiveFailures = 0;
    this.openUntil = 0;
    this.trialRunning = false;
  }

  failed(): void {
    this.consecutiveFailures += 1;
    if (this.trialRunning || this.consecutiveFailures >= this.policy.failureThreshold) {
      this.openUntil = this.now() + this.policy.cooldownMs;
      this.trialRunning = false;
    }
  }

  /** A request that got through but ended neither way (the client left first). */
  abandoned(): void {
    this.trialRunning = false;
  }

  status(): { status: BreakerStatus; retryAfterSeconds: number | null } {
    if (this.openUntil === 0) return { status: 'healthy', retryAfterSeconds: null };
    const left = this.openUntil - this.now();
    if (left > 0) return { status: 'cooling_down', retryAfterSeconds: Math.ceil(left / 1000) };
    return { status: 'trial', retryAfterSeconds: null };
  }
}
