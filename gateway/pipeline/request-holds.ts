/**
 * What one request holds while it runs: its key's concurrency slot (and, for a large body, its
 * account's large-body slot), its rate-limit tokens, its reservation and its lease. The route
 * takes the slots and hands the object to the pipeline, which adds the rest; `end` gives
 * everything back exactly once, however the request ends, so no caller needs to know who else
 * might release what.
 */
import type { Logger } from 'pino';
import type { Reservation } from '../billing/budget';
import type { RequestRateLimits } from '../limits/request-rate-limits';
import type { SlotRelease } from './key-slots';

/** The worst case admission counted, which the rate limits admit before money is reserved. */
export type TokenEstimate = { promptTokens: number; maxOutputTokens: number };

export class RequestHolds {
  private ended = false;
  private largeBody: SlotRelease | null = null;
  private rateLimits: RequestRateLimits | null = null;
  private reservation: {
    reservation: Reservation;
    release: (reservation: Reservation) => Promise<void>;
  } | null = null;
  private lease: (() => void) | null = null;
  private readonly afterEnd: Array<() => void> = [];
  /** Prompt plus completion tokens charged, once the record is written (the rate limits refund the rest). */
  chargedTokens = 0;

  constructor(
    private readonly traceId: string,
    private readonly logger: Logger,
    /** The key's concurrency slot, taken before the body was read. */
    private slot: SlotRelease | null = null,
  ) {}

  get hasEnded(): boolean {
    return this.ended;
  }

  /** The account's large-body slot, held while a large body is parsed, converted and counted. */
  holdLargeBody(release: SlotRelease): void {
    this.largeBody = release;
  }

  /** The heavy part of a large body is over: its slot goes back before the answer is written. */
  releaseLargeBody(): void {
    this.largeBody?.();
    this.largeBody = null;
  }

  holdRateLimits(limits: RequestRateLimits): void {
    this.rateLimits = limits;
  }

  /** Counts the request against its key's rate limits (a 429 here), if the route gave any. */
  async admitRateLimits(estimate: TokenEstimate): Promise<void> {
    await this.rateLimits?.admit(estimate);
  }

  holdReservation(
    reservation: Reservation,
    release: (reservation: Reservation) => Promise<void>,
  ): void {
    this.reservation = { reservation, release };
  }

  /** The request's lease: `release` stops tracking its in-flight row. */
  holdLease(release: () => void): void {
    this.lease = release;
  }

  /** Runs once, after everything held was given back (the pipeline's own count of requests). */
  onEnd(listener: () => void): void {
    this.afterEnd.push(listener);
  }

  /** Gives everything back; later calls do nothing. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.lease?.();
    if (this.reservation) {
      const { reservation, release } = this.reservation;
      // A no-op when the record was written (it freed the reservation); frees it otherwise.
      release(reservation).catch((error: unknown) => {
        this.logger.warn({ err: error, cfRay: this.traceId }, 'in-flight row not dropped');
      });
    }
    this.slot?.();
    this.slot = null;
    this.releaseLargeBody();
    this.rateLimits?.settle(this.chargedTokens);
    for (const listener of this.afterEnd.splice(0)) listener();
  }
}
