import { compareDecimal, decimalToString, parseDecimal, shiftDecimal } from './decimal';

function decimal(text: string) {
  const value = parseDecimal(text);
  if (!value) throw new Error(`not a decimal: ${text}`);
  return value;
}

describe('decimal math', () => {
  it('parses plain, signed and exponent forms', () => {
    expect(parseDecimal('0.000003')).toEqual({ digits: 3n, scale: 6 });
    expect(parseDecimal('3e-6')).toEqual({ digits: 3n, scale: 6 });
    expect(parseDecimal('1.50')).toEqual({ digits: 15n, scale: 1 });
    expect(parseDecimal('-2')).toEqual({ digits: -2n, scale: 0 });
    expect(parseDecimal('2E3')).toEqual({ digits: 2000n, scale: 0 });
    expect(parseDecimal('.5')).toEqual({ digits: 5n, scale: 1 });
  });

  it('rejects what is not a number', () => {
    for (const text of ['', '.', 'abc', '1.2.3', '0x10', '1e'])
      expect(parseDecimal(text)).toBeNull();
  });

  it('shifts exactly', () => {
    expect(decimalToString(shiftDecimal(decimal('0.0000029'), 6))).toBe('2.9');
    expect(decimalToString(shiftDecimal(decimal('0.1'), 6))).toBe('100,000');
  });

  it('compares across scales', () => {
    expect(compareDecimal(decimal('0.1'), decimal('0.10'))).toBe(0);
    expect(compareDecimal(decimal('0.09'), decimal('0.1'))).toBe(-1);
    expect(compareDecimal(decimal('2'), decimal('1.999999999999'))).toBe(1);
  });

  it('rounds half up to the maximum digits and pads to the minimum', () => {
    expect(decimalToString(decimal('1.23456789'), 2, 6)).toBe('1.234568');
    expect(decimalToString(decimal('0.0000004'), 2, 6)).toBe('0.00');
    expect(decimalToString(decimal('0.0000005'), 2, 6)).toBe('0.000001');
    expect(decimalToString(decimal('3'), 2, 6)).toBe('3.00');
    expect(decimalToString(decimal('-0.5'), 2)).toBe('-0.50');
  });
});
