/**
 * The in-memory budget (billing/budget.ts) of a gateway that owns its keys' money alone (the
 * embedded SQLite default): what each funding key has pending (recorded, not yet settled) and
 * reserved (requests in flight, at their worst-case cost). Admission checks
 * settled + pending + reserved + this request against limit + grace in one synchronous step, so
 * no interleaving of concurrent requests can spend past the bound.
 */
import { formatNanosUsd } from '../../contract/usd-nanos';
import { GatewayError } from '../errors';
import type { InflightRow, KeyRow, ReclaimResult } from '../store/store';
import type { Budget, Charge, Reservation, Worstcase } from './budget';
import type { InflightRows } from './inflight-rows';
import type { Nanos } from '../shared/money';
import { ceilingNanos } from '../keys/budget-period';

export type { Reservation, Worstcase };

export class MemoryBudget implements Budget {
  private readonly pending: Map<string, Nanos>;
  private readonly reserved = new Map<string, Nanos>();

  constructor(
    initialPending: Map<string, Nanos>,
    private readonly rows: InflightRows,
  ) {
    this.pending = new Map(initialPending);
  }

  pendingFor(fundingKeyId: string): Nanos {
    return this.pending.get(fundingKeyId) ?? 0;
  }

  reservedNow(fundingKeyId: string): Nanos {
    return this.reserved.get(fundingKeyId) ?? 0;
  }

  reservedFor(fundingKeyId: string): Promise<Nanos> {
    return Promise.resolve(this.reservedNow(fundingKeyId));
  }

  reserve(funding: KeyRow, worstcase: Worstcase, row: InflightRow): Promise<Reservation> {
    try {
      return Promise.resolve(this.reserveNow(funding, worstcase, row));
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** The synchronous step itself: checks and holds in one go, or throws the 402. */
  reserveNow(funding: KeyRow, worstcase: Worstcase, row: InflightRow): Reservation {
    const reserved = this.reservedNow(funding.id);
    const spent = funding.consumptionNanos + this.pendingFor(funding.id) + reserved;
    const ceiling = ceilingNanos(funding);
    if (spent + worstcase.nanos > ceiling) {
      throw insufficientBalance(worstcase, ceiling - spent, reserved > 0);
    }
    this.reserved.set(funding.id, reserved + worstcase.nanos);
    this.rows.open(row);
    return { id: row.id, fundingKeyId: funding.id, nanos: worstcase.nanos, released: false };
  }

  /**
   * Counts what the record moved on pending. A record that replaced a settled one also took the
   * old cost out of consumption: the registry shows that once it reads the keys again (the store
   * changed one), and until then the key looks that much more spent, never less.
   */
  async charged(reservation: Reservation, charge: Charge): Promise<void> {
    this.free(reservation);
    this.addPending(reservation.fundingKeyId, charge.pendingNanos);
  }

  async release(reservation: Reservation): Promise<void> {
    if (!this.free(reservation)) return;
    await this.rows.drop(reservation.id);
  }

  /** Leases matter only across instances; one process frees its own at once. */
  async renew(): Promise<ReadonlySet<string>> {
    return new Set();
  }

  settled(moved: Map<string, Nanos>): void {
    for (const [id, nanos] of moved) this.addPending(id, -nanos);
  }

  async reclaimed(result: ReclaimResult): Promise<void> {
    for (const record of result.records) this.addPending(record.fundingKeyId, record.costNanos);
  }

  private addPending(fundingKeyId: string, nanos: Nanos): void {
    if (nanos === 0) return;
    const total = this.pendingFor(fundingKeyId) + nanos;
    if (total > 0) this.pending.set(fundingKeyId, total);
    else this.pending.delete(fundingKeyId);
  }

  async close(): Promise<void> {}

  /** Frees a reservation; false when it was already freed (a request can end in more than one way). */
  private free(reservation: Reservation): boolean {
    if (reservation.released) return false;
    reservation.released = true;
    const left = this.reservedNow(reservation.fundingKeyId) - reservation.nanos;
    if (left > 0) this.reserved.set(reservation.fundingKeyId, left);
    else this.reserved.delete(reservation.fundingKeyId);
    return true;
  }
}

/**
 * The 402 of every budget: how much the request could cost, and how many output tokens the key
 * can still afford on this model with `left` nanos.
 */
export function insufficientBalance(
  worstcase: Worstcase,
  left: Nanos,
  inFlight: boolean,
): GatewayError {
  const afterPrompt = Math.max(left - worstcase.promptNanos, 0);
  const affordable =
    worstcase.completionTokenNanos > 0
      ? Math.floor(afterPrompt / worstcase.completionTokenNanos)
      : 0;
  return new GatewayError({
    status: 402,
    type: 'insufficient_balance',
    stage: 'admission',
    message:
      `This request could cost up to ${formatNanosUsd(worstcase.nanos)} (prompt plus ${worstcase.maxOutputTokens} output tokens), ` +
      `more than the key has left${inFlight ? ' (including requests still running)' : ''}. It can still afford about ${affordable} output tokens ` +
      `on this model: lower max_tokens, or add balance. Do not retry unchanged.`,
  });
}
