import { GatewayError } from '../errors';
import type { KeyRow } from '../store/store';
import { Ledger, type Worstcase } from './ledger';

const key = (overrides: Partial<KeyRow> = {}): KeyRow => ({
  id: 'key_a',
  kind: 'account',
  parentId: null,
  name: 'a',
  digest: 'v1$digest',
  masked: 'sk-…',
  limitNanos: 1_000_000,
  graceNanos: 100_000,
  consumptionNanos: 0,
  expiresAt: null,
  disabled: false,
  revokedAt: null,
  createdAt: 0,
  ...overrides,
});

/** A request with a prompt of 10 tokens at 1000 nanos and up to `tokens` output at 3000. */
const worst = (tokens: number): Worstcase => ({
  nanos: 10_000 + tokens * 3_000,
  promptNanos: 10_000,
  completionTokenNanos: 3_000,
  maxOutputTokens: tokens,
});

function refusalOf(action: () => unknown): GatewayError {
  try {
    action();
  } catch (error) {
    if (error instanceof GatewayError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
}

describe('Ledger', () => {
  it('reserves up to limit + grace and refuses past it with 402', () => {
    const ledger = new Ledger(new Map());
    const funding = key();
    // Ceiling 1_100_000: 363 tokens fit (10_000 + 363 * 3000 = 1_099_000); 364 would not.
    ledger.reserve(funding, worst(363));
    expect(ledger.reservedFor('key_a')).toBe(1_099_000);
    const error = refusalOf(() => ledger.reserve(funding, worst(1)));
    expect(error.status).toBe(402);
    expect(error.type).toBe('insufficient_balance');
    expect(error.stage).toBe('admission');
    expect(error.message).toMatch(/can still afford about 0 output tokens/);
    expect(error.message).toMatch(/including requests still running/);
    expect(ledger.reservedFor('key_a')).toBe(1_099_000);
  });

  it('says exactly how many output tokens the key can still afford', () => {
    const ledger = new Ledger(new Map([['key_a', 400_000]]));
    const funding = key({ consumptionNanos: 300_000 });
    // left = 1_100_000 - 300_000 - 400_000 - 10_000 (prompt) = 390_000 -> 130 tokens
    const error = refusalOf(() => ledger.reserve(funding, worst(1000)));
    expect(error.message).toMatch(/can still afford about 130 output tokens/);
    expect(error.message).not.toMatch(/still running/);
    expect(() => ledger.reserve(funding, worst(131))).toThrow(GatewayError);
    expect(ledger.reserve(funding, worst(130)).nanos).toBe(400_000);
  });

  it('releases a reservation once, however often release is called', () => {
    const ledger = new Ledger(new Map());
    const funding = key();
    const first = ledger.reserve(funding, worst(100));
    const second = ledger.reserve(funding, worst(100));
    expect(ledger.reservedFor('key_a')).toBe(620_000);
    ledger.release(first);
    ledger.release(first);
    expect(ledger.reservedFor('key_a')).toBe(310_000);
    ledger.release(second);
    expect(ledger.reservedFor('key_a')).toBe(0);
    // The released room is admitted again.
    expect(() => ledger.reserve(funding, worst(363))).not.toThrow();
  });

  it('counts settled consumption, pending charges and reservations against the bound', () => {
    const ledger = new Ledger(new Map());
    const funding = key({ consumptionNanos: 500_000 });
    ledger.addPending('key_a', 300_000);
    ledger.addPending('key_a', 0);
    expect(ledger.pendingFor('key_a')).toBe(300_000);
    ledger.reserve(funding, worst(90)); // 280_000: 1_080_000 of the 1_100_000 ceiling spoken for
    expect(() => ledger.reserve(funding, worst(4))).toThrow(GatewayError); // 22_000 > 20_000 left
    expect(() => ledger.reserve(funding, worst(3))).not.toThrow(); // 19_000 fits
  });

  it('moves pending amounts out when they settle, per key', () => {
    const ledger = new Ledger(
      new Map([
        ['key_a', 500],
        ['key_b', 700],
      ]),
    );
    ledger.addPending('key_a', 250);
    ledger.settled(new Map([['key_a', 750]]));
    expect(ledger.pendingFor('key_a')).toBe(0);
    expect(ledger.pendingFor('key_b')).toBe(700);
    ledger.settled(new Map([['key_b', 200]]));
    expect(ledger.pendingFor('key_b')).toBe(500);
  });

  it('keeps keys apart', () => {
    const ledger = new Ledger(new Map());
    ledger.reserve(key(), worst(363));
    expect(() => ledger.reserve(key({ id: 'key_b' }), worst(363))).not.toThrow();
  });
});
