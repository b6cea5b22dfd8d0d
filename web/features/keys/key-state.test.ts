import { describe, expect, it } from 'vitest';
import { formatUsd } from '../../lib/format';
import { leftNow } from './key-state';

describe('leftNow', () => {
  it('takes the charges not settled yet off what remains, exactly', () => {
    const left = leftNow({ remaining_usd: 0.001, pending_usd: 0.000724 });
    expect(formatUsd(left.usd)).toBe('$0.000276');
    expect(formatUsd(left.pendingUsd)).toBe('$0.000724');
  });

  it('never goes below zero, and takes an older gateway without pending at its word', () => {
    expect(leftNow({ remaining_usd: 0.0001, pending_usd: 0.0003 }).usd).toBe(0);
    expect(leftNow({ remaining_usd: 2.5 })).toEqual({ usd: 2.5, pendingUsd: 0 });
  });
});
