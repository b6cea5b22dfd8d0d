import { formatNanosUsd, nanosToPlainUsd, usdToNanos } from './usd-nanos';

describe('money', () => {
  it('adds exactly in nano-dollars, where floats would drift', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(usdToNanos(0.1) + usdToNanos(0.2)).toBe(usdToNanos(0.3));
    expect(usdToNanos(4.57e-7)).toBe(457);
    expect(usdToNanos(12_345.000000001)).toBe(12_345_000_000_001);
  });

  it('writes nano-dollars exactly: plain for the CSV, with $ and grouping for people', () => {
    expect(nanosToPlainUsd(300_123_457)).toBe('0.300123457');
    expect(nanosToPlainUsd(0)).toBe('0');
    expect(nanosToPlainUsd(1_234_500_000_000)).toBe('1234.5');
    expect(formatNanosUsd(300_123_457)).toBe('$0.300123457');
    expect(formatNanosUsd(123_000)).toBe('$0.000123');
    expect(formatNanosUsd(0)).toBe('$0.00');
    expect(formatNanosUsd(1_234_500_000_000)).toBe('$1,234.50');
  });
});
