/**
 * Admission's money: one interface, three homes for the reservations of running requests.
 * - `MemoryBudget` (billing/memory-budget.ts): one process owns the key's money (the embedded SQLite
 *   default); exact because admission is one synchronous step.
 * - `StoreBudget` (billing/store-budget.ts): PostgreSQL without Redis; one guarded row update per
 *   admission, exact across instances, one more database write per request.
 * - `RedisBudget` (billing/redis-budget.ts): a Lua script per admission; exact across instances
 *   without touching PostgreSQL before the answer.
 * Every one of them checks settled + pending + reserved + this request against limit + grace.
 */
import type { GatewayError } from '../errors';
import type { KeyRow, InflightRow, ReclaimResult } from '../store/store';
import type { Nanos } from '../shared/money';

export type Worstcase = {
  /** Worst-case cost of this request. */
  nanos: Nanos;
  /** Cost of the prompt alone, known before the request runs. */
  promptNanos: Nanos;
  /** Price of one completion token, to say how many the key can still afford. */
  completionTokenNanos: Nanos;
  maxOutputTokens: number;
};

export type Reservation = {
  /** The request's trace id (its in-flight row's id). */
  id: string;
  fundingKeyId: string;
  nanos: Nanos;
  released: boolean;
};

/**
 * What a request's record moved on its funding key: its cost, into pending; or, when it replaced
 * the record written as its lease ran out (`RecordCorrection`), the difference.
 */
export type Charge = {
  /** What the key's pending total moved by. */
  pendingNanos: Nanos;
  /** What consumption and pending together moved by. */
  chargedNanos: Nanos;
};

/** The charge of a record stored as it was written: its whole cost, pending. */
export const pendingCharge = (costNanos: Nanos): Charge => ({
  pendingNanos: costNanos,
  chargedNanos: costNanos,
});

export interface Budget {
  /**
   * Reserves the worst case for the request whose in-flight row is `row` (a budget that holds the
   * reservation in the store's own counter sets `row.reservedNanos` to it), or throws the 402 that says how much the key can still afford
   * (`insufficientBalance`). Writes, or has written, the in-flight row.
   */
  reserve(funding: KeyRow, worstcase: Worstcase, row: InflightRow): Promise<Reservation>;
  /**
   * The request's record is written (its cost now pending in the store): the reservation is
   * freed and the charge counted. Safe to call once per reservation.
   */
  charged(reservation: Reservation, charge: Charge): Promise<void>;
  /**
   * The request ended without a record: drops the in-flight row, then frees the reservation (in
   * that order, so a row that another instance may still close and charge is never left behind
   * a reservation already given away).
   */
  release(reservation: Reservation): Promise<void>;
  /**
   * Renews the leases of these running requests' reservations (every second or so), where the
   * budget holds them apart from the in-flight rows (Redis). Resolves with the ids of those whose
   * reservation was already gone (its lease ran out and was freed): they may charge nothing more.
   */
  renew(reservations: Reservation[], leaseExpiresAt: number): Promise<ReadonlySet<string>>;
  /** Settlement moved these amounts from pending into consumption. */
  settled(moved: Map<string, Nanos>): void;
  /** A dead instance's in-flight rows were closed: count their charges, free their holds. */
  reclaimed(result: ReclaimResult): Promise<void>;
  /** Reserved by running requests, for one funding key (as far as this process can tell). */
  reservedFor(fundingKeyId: string): Promise<Nanos>;
  close(): Promise<void>;
}

export type { GatewayError };
