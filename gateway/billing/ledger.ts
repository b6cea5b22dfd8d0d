/**
 * The in-memory half of the money: what each funding key has pending (recorded, not yet settled)
 * and reserved (requests in flight, at their worst-case cost). Admission checks
 * settled + pending + reserved + this request against limit + grace in one synchronous step, so
 * no interleaving of concurrent requests can spend past the bound.
 */
import { GatewayError } from '../errors';
import type { KeyRow } from '../store/store';
import { nanosToUsd, type Nanos } from './money';

export type Reservation = { fundingKeyId: string; nanos: Nanos; released: boolean };

export type Worstcase = {
  /** Worst-case cost of this request. */
  nanos: Nanos;
  /** Cost of the prompt alone, known before the request runs. */
  promptNanos: Nanos;
  /** Price of one completion token, to say how many the key can still afford. */
  completionTokenNanos: Nanos;
  maxOutputTokens: number;
};

export class Ledger {
  private readonly pending: Map<string, Nanos>;
  private readonly reserved = new Map<string, Nanos>();

  constructor(initialPending: Map<string, Nanos>) {
    this.pending = new Map(initialPending);
  }

  pendingFor(fundingKeyId: string): Nanos {
    return this.pending.get(fundingKeyId) ?? 0;
  }

  reservedFor(fundingKeyId: string): Nanos {
    return this.reserved.get(fundingKeyId) ?? 0;
  }

  /** Reserves the worst case or throws the 402 that says how much the key can still afford. */
  reserve(funding: KeyRow, worstcase: Worstcase): Reservation {
    const spent =
      funding.consumptionNanos + this.pendingFor(funding.id) + this.reservedFor(funding.id);
    const ceiling = funding.limitNanos + funding.graceNanos;
    if (spent + worstcase.nanos > ceiling) {
      const left = Math.max(ceiling - spent - worstcase.promptNanos, 0);
      const affordable =
        worstcase.completionTokenNanos > 0 ? Math.floor(left / worstcase.completionTokenNanos) : 0;
      const inFlight =
        this.reservedFor(funding.id) > 0 ? ' (including requests still running)' : '';
      throw new GatewayError(
        402,
        'insufficient_balance',
        'admission',
        `This request could cost up to $${formatUsd(worstcase.nanos)} (prompt plus ${worstcase.maxOutputTokens} output tokens), ` +
          `more than the key has left${inFlight}. It can still afford about ${affordable} output tokens ` +
          `on this model: lower max_tokens, or add balance. Do not retry unchanged.`,
      );
    }
    this.reserved.set(funding.id, this.reservedFor(funding.id) + worstcase.nanos);
    return { fundingKeyId: funding.id, nanos: worstcase.nanos, released: false };
  }

  /** Frees a reservation; safe to call twice (a request can end in more than one way). */
  release(reservation: Reservation): void {
    if (reservation.released) return;
    reservation.released = true;
    const left = this.reservedFor(reservation.fundingKeyId) - reservation.nanos;
    if (left > 0) this.reserved.set(reservation.fundingKeyId, left);
    else this.reserved.delete(reservation.fundingKeyId);
  }

  /** A generation record was written: its cost is pending until settlement. */
  addPending(fundingKeyId: string, nanos: Nanos): void {
    if (nanos > 0) this.pending.set(fundingKeyId, this.pendingFor(fundingKeyId) + nanos);
  }

  /** Settlement moved these amounts into consumption. */
  settled(moved: Map<string, Nanos>): void {
    for (const [id, nanos] of moved) {
      const left = this.pendingFor(id) - nanos;
      if (left > 0) this.pending.set(id, left);
      else this.pending.delete(id);
    }
  }
}

const formatUsd = (nanos: Nanos) =>
  nanosToUsd(nanos).toFixed(6).replace(/0+$/, '').replace(/\.$/, '');
