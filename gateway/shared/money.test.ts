import { nanosToDecimalString, nanosToUsd, parseUsdToNanos, usdToNanos } from './money';

describe('parseUsdToNanos', () => {
  it.each([
    ['0', 0],
    ['1', 1_000_000_000],
    ['12.5', 12_500_000_000],
    ['0.000003', 3_000],
    ['0.000000125', 125],
    ['0.1', 100_000_000],
    [' 0.2 ', 200_000_000],
    ['0.999999999', 999_999_999],
  ])('parses %j exactly to %d nanos', (decimal, nanos) => {
    expect(parseUsdToNanos(decimal)).toBe(nanos);
  });

  it.each(['', 'abc', '-1', '1e-6', '0.0000000001', '1.', '.5', '1,5', 'NaN', '99999999999999999'])(
    'refuses %j, which is not an exact amount',
    (decimal) => {
      expect(parseUsdToNanos(decimal)).toBeNull();
    },
  );

  it('adds 0.1 and 0.2 to exactly 0.3', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(parseUsdToNanos('0.1')! + parseUsdToNanos('0.2')!).toBe(parseUsdToNanos('0.3'));
  });

  it('sums a million charges of 0.000003 USD to exactly 3 USD', () => {
    const charge = parseUsdToNanos('0.000003')!;
    let total = 0;
    let floatTotal = 0;
    for (let index = 0; index < 1_000_000; index += 1) {
      total += charge;
      floatTotal += 0.000003;
    }
    expect(total).toBe(3_000_000_000);
    expect(total).toBe(parseUsdToNanos('3'));
    expect(nanosToUsd(total)).toBe(3);
    // The naive float sum drifts; the nano sum does not.
    expect(floatTotal).not.toBe(3);
  });
});

describe('conversions', () => {
  it('writes nanos as the catalog decimal string and reads it back', () => {
    for (const nanos of [0, 1, 125, 3_000, 15_000, 100_000_000, 1_000_000_000, 12_500_000_001]) {
      const decimal = nanosToDecimalString(nanos);
      expect(decimal).toMatch(/^\d+(\.\d*[1-9])?$/);
      expect(parseUsdToNanos(decimal)).toBe(nanos);
    }
    expect(nanosToDecimalString(3_000)).toBe('0.000003');
    expect(nanosToDecimalString(2_000_000_000)).toBe('2');
  });

  it('rounds USD numbers to the nearest nano', () => {
    expect(usdToNanos(0.1 + 0.2)).toBe(300_000_000);
    expect(usdToNanos(0.0000000014)).toBe(1);
    expect(usdToNanos(25)).toBe(25_000_000_000);
    expect(nanosToUsd(usdToNanos(12.345678912))).toBe(12.345678912);
  });
});
