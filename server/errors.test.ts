import { describe, expect, it } from 'vitest';
import { adviceForStatus, gatewayErrorFailure } from './errors';

describe('advice for a gateway refusal', () => {
  it('names the precise cause when the gateway sent its error type', () => {
    const failure = gatewayErrorFailure(
      402,
      { error: 'This key is disabled.', type: 'key_disabled', stage: 'authentication' },
      null,
      [],
    );
    expect(failure.detail.advice).toMatch(/^The key is disabled\..*Do not retry unchanged\.$/);
    expect(adviceForStatus(402, 'insufficient_balance')).toMatch(/Lower max_tokens/);
  });

  it('falls back to the spec advice for the status when the type is unknown or missing', () => {
    expect(adviceForStatus(402, 'something_new')).toBe(adviceForStatus(402));
    expect(gatewayErrorFailure(402, { error: 'no' }, null, []).detail.advice).toMatch(
      /expired, disabled, depleted/,
    );
  });
});
