import {
  formatContextLength,
  formatDuration,
  formatPercent,
  formatPricePerMillion,
  formatUsdCents,
  formatUsd,
  toMilliseconds,
} from './format';
import { formatNanosUsd, usdToNanos } from '../../contract/usd-nanos';

describe('formatPricePerMillion', () => {
  it.each([
    ['0.000003', '$3.00'],
    ['0.0000025', '$2.50'],
    ['0.00000015', '$0.15'],
    ['0.000000075', '$0.075'],
    ['0.0000003', '$0.30'],
    ['0.00001', '$10.00'],
    ['0.00006', '$60.00'],
    ['0', '$0.00'],
    ['3e-6', '$3.00'],
    ['0.000015', '$15.00'],
    ['0.12', '$120,000.00'],
  ])('shows %s per token as %s per million, exactly', (perToken, expected) => {
    expect(formatPricePerMillion(perToken)).toBe(expected);
  });

  it('never shows float drift', () => {
    // As floats these are 0.049999999999999996 and 0.16999999999999998.
    expect(Number('0.00000005') * 1e6).not.toBe(0.05);
    expect(formatPricePerMillion('0.00000005')).toBe('$0.05');
    expect(formatPricePerMillion('0.00000017')).toBe('$0.17');
    expect(formatPricePerMillion('0.000003')).toBe('$3.00');
    expect(formatPricePerMillion('0.0000001234567891')).toBe('$0.123457');
  });

  it('says when a price is unknown or varies', () => {
    expect(formatPricePerMillion(null)).toBe('—');
    expect(formatPricePerMillion('abc')).toBe('—');
    expect(formatPricePerMillion('-1')).toBe('varies');
  });
});

describe('formatContextLength', () => {
  it.each([
    [131_072, '128K'],
    [128_000, '128K'],
    [200_000, '200K'],
    [32_768, '32K'],
    [8192, '8K'],
    [1_048_576, '1M'],
    [1_000_000, '1M'],
    [2_000_000, '2M'],
    [1_500_000, '1.5M'],
    [4095, '4.1K'],
    [512, '512'],
  ])('shows %i tokens as %s', (tokens, expected) => {
    expect(formatContextLength(tokens)).toBe(expected);
  });

  it('shows a dash for unknown lengths', () => {
    expect(formatContextLength(null)).toBe('—');
    expect(formatContextLength(0)).toBe('—');
  });
});

describe('formatDuration', () => {
  it.each([
    [850, '850 ms'],
    [1234, '1.2 s'],
    [245_000, '4 min 5 s'],
    [120_000, '2 min'],
    [3 * 3_600_000 + 20 * 60_000, '3 h 20 min'],
    [12 * 86_400_000 + 4 * 3_600_000, '12 d 4 h'],
    [-90_000, '-1 min 30 s'],
  ])('shows %i ms as %s', (milliseconds, expected) => {
    expect(formatDuration(milliseconds)).toBe(expected);
  });
});

describe('formatUsd', () => {
  it('shows at least cents, and every digit down to the micro-dollar', () => {
    expect(formatUsd(7.5)).toBe('$7.50');
    expect(formatUsd(1234.567)).toBe('$1,234.567');
    // A balance after a few requests is not rounded back up to the limit.
    expect(formatUsd(24.999383)).toBe('$24.999383');
    expect(formatUsd(0.1 + 0.2)).toBe('$0.30');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.000012)).toBe('$0.000012');
    expect(formatUsd(null)).toBe('—');
  });

  it('is the same money format as every page’s: each digit the gateway counts', () => {
    // Keys showed $0.01268 where Activity showed $0.0126798 for the same charge.
    expect(formatUsd(0.0126798)).toBe('$0.0126798');
    expect(formatUsd(0.0126798)).toBe(formatNanosUsd(usdToNanos(0.0126798)));
    expect(formatUsd(24.9873202)).toBe('$24.9873202');
  });
});

describe('toMilliseconds', () => {
  it('accepts seconds or milliseconds', () => {
    expect(toMilliseconds(1_760_000_000)).toBe(1_760_000_000_000);
    expect(toMilliseconds(1_760_000_000_000)).toBe(1_760_000_000_000);
  });
});

describe('formatPercent', () => {
  it.each([
    [118 / 120, '98.3%'],
    [1, '100%'],
    [0.9999, '99.9%'],
    [0, '0%'],
    [0.5, '50%'],
    [null, '—'],
  ])('%s → %s', (share, text) => {
    expect(formatPercent(share)).toBe(text);
  });
});

describe('formatUsdCents', () => {
  it.each([
    [3.745678, '$3.75'],
    [1234.5, '$1,234.50'],
    [0, '$0.00'],
    [0.004, '<$0.01'],
    [-2.5, '-$2.50'],
    [null, '—'],
  ])('%s → %s', (amount, text) => {
    expect(formatUsdCents(amount)).toBe(text);
  });
});
