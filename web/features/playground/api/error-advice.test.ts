import { describe, expect, it } from 'vitest';
import { ApiRequestError } from '../../../lib/api-client';
import {
  connectionLost,
  runErrorForBrokenStream,
  runErrorFromStream,
  runErrorFromThrown,
} from './error-advice';

const genericServerAdvice =
  'The key is expired, disabled, depleted, or its parent key is disabled or expired. Inspect the key state and balance on the Keys page; do not retry unchanged.';

function refusal(type: string | undefined, advice = genericServerAdvice) {
  return new ApiRequestError({
    message: 'refused',
    status: 402,
    stage: 'authentication',
    request: 'POST /api/chat',
    upstreamStatus: 402,
    type,
    advice,
  });
}

describe('run error advice', () => {
  it('shows the BFF’s advice, which names the one cause the gateway gave', () => {
    const specific =
      'The key is disabled. Enable it on the Keys page: choose its account profile, then Enable in the Child keys table. Or choose another key profile.';
    expect(runErrorFromThrown(refusal('key_disabled', specific)).advice).toBe(specific);
  });

  it('says the advice once: the BFF’s when the type is unknown, not the BFF’s and the generic one joined', () => {
    const advice = runErrorFromThrown(refusal(undefined)).advice ?? '';
    expect(advice).toBe(genericServerAdvice);
    expect(advice.match(/do not retry unchanged/gi)).toHaveLength(1);
  });

  it('keeps the BFF’s own advice for its own failures, such as an unreachable gateway', () => {
    const error = new ApiRequestError({
      message: 'Cannot connect to the gateway.',
      status: 502,
      stage: 'connect',
      request: 'POST /api/chat',
      advice: 'The gateway is not reachable: check GATEWAY_BASE_URL.',
    });
    expect(runErrorFromThrown(error).advice).toBe(
      'The gateway is not reachable: check GATEWAY_BASE_URL.',
    );
  });

  it('falls back to the generic advice for an error inside a stream', () => {
    expect(
      runErrorFromStream({ message: 'x', stage: 'gateway', type: null }, 402, null).advice,
    ).toMatch(/Do not retry unchanged/);
  });
});

describe('a stream that broke off', () => {
  const brokeOff = {
    message: "The gateway's answer broke off (UND_ERR_SOCKET).",
    stage: 'gateway',
    type: null,
    fromWorkbench: true,
  };

  it('is a lost connection when the workbench server says the gateway’s answer broke off, or nobody says anything', () => {
    expect(connectionLost(brokeOff)).toBe(true);
    expect(connectionLost(null)).toBe(true);
    // An error the gateway itself sent in the stream is the gateway's answer, not a lost line.
    expect(connectionLost({ ...brokeOff, fromWorkbench: undefined })).toBe(false);
    expect(connectionLost({ ...brokeOff, stage: 'provider' })).toBe(false);
  });

  it('says the answer broke off because the connection was lost, not that the gateway reported an error', () => {
    const error = runErrorForBrokenStream(brokeOff, 200, 'abc-LCL');
    expect(error.brokeOff).toBe(true);
    expect(error.message).toMatch(/^The answer broke off: the connection to the gateway was lost/);
    expect(error.message).toContain('UND_ERR_SOCKET');
    expect(error.advice).not.toMatch(/reported an error/);
    expect(error.advice).toMatch(/Re-run/);
  });
});
