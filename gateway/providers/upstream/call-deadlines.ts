/**
 * The deadlines of one upstream call that undici's timeouts cannot keep (to the first event, to
 * the end), swept by one timer for every call; a slow client's time is not the provider's.
 * Why: docs/decisions/0011-upstream-deadlines-on-one-timer.md
 */
import type { ProviderTimeouts } from './provider-config';
import { UpstreamError } from '../upstream-error';

/** How often the running calls are looked at; the most a deadline is kept late by. */
const SWEEP_MS = 100;

export class CallDeadline {
  /** The timeout that ended the call, once one has. */
  expired: UpstreamError | null = null;
  private started = false;
  private cancel: ((reason: UpstreamError) => void) | null = null;
  private readonly firstEventAt: number;
  private readonly endAt: number;
  /** Since when the event last handed over has been held, or null when the call is being read. */
  private heldSince: number | null = null;
  private heldMs = 0;

  constructor(
    private readonly timeouts: Pick<ProviderTimeouts, 'firstEventMs' | 'totalMs'>,
    private readonly providerId: string,
    now = performance.now(),
  ) {
    this.firstEventAt = now + timeouts.firstEventMs;
    this.endAt = now + timeouts.totalMs;
    running.add(this);
    sweeper ??= setInterval(sweep, SWEEP_MS).unref();
  }

  /** The answer's first text, tool call or end has arrived: only the total deadline remains. */
  answerStarted(): void {
    this.started = true;
  }

  /** An event was handed to the gateway: until it asks for the next, the wait is not the provider's. */
  handedOver(now = performance.now()): void {
    this.heldSince = now;
  }

  /** The gateway asks for the next event. */
  takenBack(now = performance.now()): void {
    if (this.heldSince === null) return;
    this.heldMs += now - this.heldSince;
    this.heldSince = null;
  }

  /** What ends the call when a deadline passes (called again as the call moves on). */
  bind(cancel: (reason: UpstreamError) => void): void {
    this.cancel = cancel;
    if (this.expired) cancel(this.expired);
  }

  /** The call is over. */
  clear(): void {
    running.delete(this);
  }

  /** Expires the call if a deadline has passed at `now`. */
  check(now: number): void {
    if (this.expired) return;
    if (!this.started && now >= this.firstEventAt) {
      this.expire(
        'first_event_timeout',
        `The provider sent no part of its answer within ${duration(this.timeouts.firstEventMs)}.`,
      );
    } else if (now >= this.endAt) {
      const held = this.heldMs + (this.heldSince === null ? 0 : now - this.heldSince);
      if (now - held >= this.endAt) {
        this.expire(
          'total_timeout',
          `The provider did not finish its answer within ${duration(this.timeouts.totalMs)}.`,
        );
      } else if (now >= this.endAt + this.timeouts.totalMs) {
        this.expire(
          'total_timeout',
          `The answer was cut at twice the provider's limit of ${duration(this.timeouts.totalMs)} because the client read it slowly (the gateway waited ${(held / 1000).toFixed(1)} s for it to take what was sent).`,
          true,
        );
      }
    }
  }

  private expire(
    failure: 'first_event_timeout' | 'total_timeout',
    message: string,
    slowReader = false,
  ): void {
    this.expired = new UpstreamError(
      failure,
      this.providerId,
      message,
      slowReader ? { slowReader } : {},
    );
    running.delete(this);
    this.cancel?.(this.expired);
  }
}

const running = new Set<CallDeadline>();
let sweeper: NodeJS.Timeout | null = null;

function sweep(): void {
  const now = performance.now();
  for (const deadline of running) deadline.check(now);
}

/** `600000` → `10 min`, `1500` → `1500 ms`: as an operator wrote it, readably. */
function duration(milliseconds: number): string {
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000} min`;
  if (milliseconds % 1_000 === 0) return `${milliseconds / 1_000} s`;
  return `${milliseconds} ms`;
}
