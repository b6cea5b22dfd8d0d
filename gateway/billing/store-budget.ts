/**
 * The budget of instances sharing PostgreSQL without Redis (billing/budget.ts): the store's own
 * guarded row update admits, so the database serialises admissions to one funding key across
 * every instance. Exact, at the price of one more write per request; Redis takes that write off
 * the database (billing/redis-budget.ts).
 */
import type { GatewayStore, InflightRow, KeyRow } from '../store/store';
import type { Budget, Reservation, Worstcase } from './budget';
import type { InflightRows } from './inflight-rows';
import { insufficientBalance } from './memory-budget';
import type { Nanos } from '../shared/money';
import { ceilingNanos } from '../keys/budget-period';

export class StoreBudget implements Budget {
  constructor(
    private readonly store: GatewayStore,
    private readonly rows: InflightRows,
  ) {}

  async reserve(funding: KeyRow, worstcase: Worstcase, row: InflightRow): Promise<Reservation> {
    const result = await this.store.reserve({ ...row, reservedNanos: worstcase.nanos });
    if (!result.ok) {
      const { figures } = result;
      const spent = figures.consumptionNanos + figures.pendingNanos + figures.reservedNanos;
      throw insufficientBalance(
        worstcase,
        ceilingNanos(figures) - spent,
        figures.reservedNanos > 0,
      );
    }
    this.rows.hold(row.id, row.leaseExpiresAt);
    return {
      id: row.id,
      fundingKeyId: funding.id,
      nanos: worstcase.nanos,
      released: false,
    };
  }

  /** The record's own transaction moved the reservation into pending. */
  async charged(reservation: Reservation): Promise<void> {
    reservation.released = true;
  }

  async release(reservation: Reservation): Promise<void> {
    if (reservation.released) return;
    reservation.released = true;
    await this.rows.drop(reservation.id);
  }

  /**
   * The in-flight rows' leases are the reservations' leases: InflightRows renews them, and a
   * record finds its row (and the reservation in it) or its closure in one transaction.
   */
  async renew(): Promise<ReadonlySet<string>> {
    return new Set();
  }

  settled(): void {}

  async reclaimed(): Promise<void> {}

  async reservedFor(fundingKeyId: string): Promise<Nanos> {
    return (await this.store.fundingFigures(fundingKeyId))?.reservedNanos ?? 0;
  }

  async close(): Promise<void> {}
}
