import { describe, expect, it } from 'vitest';
import type { CheckOutcome } from '../../contract/workbench-api';
import { explainOutcome } from './outcome';

const outcomes: CheckOutcome[] = [
  'available',
  'placeholder',
  'missing',
  'unauthorized',
  'payment_required',
  'forbidden',
  'failing',
  'expected_error',
  'skipped',
];

describe('explainOutcome', () => {
  it('says a 404 is not served by this gateway, in plain words', () => {
    expect(explainOutcome('missing', { status: 404, planned: false })).toMatch(
      /^Not served by this gateway/,
    );
  });

  it.each(outcomes)('refers to no document users cannot see (%s, planned and not)', (outcome) => {
    for (const planned of [false, true]) {
      for (const status of [200, 404, 501]) {
        const text = explainOutcome(outcome, { status, planned, expectedStatus: undefined });
        expect(text).not.toMatch(/\bspec\b/i);
      }
    }
  });

  it('says what a planned entry means in plain words', () => {
    expect(explainOutcome('missing', { status: 404, planned: true })).toContain(
      'Not served by this gateway yet',
    );
  });
});
