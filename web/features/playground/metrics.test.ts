import { createSession } from './conversation-state';
import {
  chargeLookup,
  computeRunMetrics,
  describeAttempts,
  estimateCostUsd,
  formatTokensPerSecond,
  neverSent,
} from './metrics';
import type { RunRecord } from './playground-types';
import { finishedRun, toolModel } from './test-fixtures';

const baseRun: RunRecord = finishedRun;

describe('computeRunMetrics', () => {
  it('measures speed after the first token and takes the gateway’s cost as is', () => {
    const metrics = computeRunMetrics(baseRun, 'text', toolModel);
    expect(metrics.tokensPerSecond).toBe(50);
    expect(metrics.costUsd).toBe(0.0002);
    expect(metrics.costEstimated).toBe(false);
    expect(formatTokensPerSecond(metrics.tokensPerSecond)).toBe('50.0 tok/s');
  });

  it('estimates the cost from catalog prices, and says so, when the gateway reported none', () => {
    const metrics = computeRunMetrics(
      { ...baseRun, usage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 } },
      'text',
      toolModel,
    );
    expect(metrics.costEstimated).toBe(true);
    expect(metrics.costUsd).toBeCloseTo(0.004, 10);
  });

  it('estimates tokens from the text after Stop (no usage), marked as estimates', () => {
    const metrics = computeRunMetrics(
      { ...baseRun, status: 'stopped', usage: null },
      'x'.repeat(400),
      toolModel,
    );
    expect(metrics.tokensEstimated).toBe(true);
    expect(metrics.completionTokens).toBe(100);
    expect(metrics.promptTokens).toBe(1);
    expect(metrics.costEstimated).toBe(true);
  });

  it('reports no speed for a reply that arrived in one piece', () => {
    expect(
      computeRunMetrics({ ...baseRun, firstTokenMs: 40, totalMs: 41 }, '', toolModel)
        .tokensPerSecond,
    ).toBeNull();
  });

  it('has no cost estimate without prices', () => {
    expect(estimateCostUsd(undefined, 10, 10)).toBeNull();
    expect(createSession().parameters.stream).toBe(true);
  });
});

describe('computeRunMetrics for a refused request', () => {
  const refusedRun: RunRecord = {
    ...baseRun,
    status: 'error',
    firstTokenMs: null,
    totalMs: 23,
    upstreamStatus: 402,
    finishReason: null,
    usage: null,
    error: {
      message: 'This key is disabled.',
      status: 402,
      stage: 'authentication',
      upstreamStatus: 402,
      cfRay: baseRun.cfRay,
      advice: null,
      type: 'key_disabled',
    },
  };

  it('reports no tokens and a cost of zero, not an estimate, when the gateway refused before any output', () => {
    const metrics = computeRunMetrics(refusedRun, '', toolModel);
    expect(metrics.refused).toBe(true);
    expect(metrics.promptTokens).toBeNull();
    expect(metrics.completionTokens).toBeNull();
    expect(metrics.costUsd).toBe(0);
    expect(metrics.costEstimated).toBe(false);
  });

  it('still estimates a failure after output arrived, or a gateway fault, since those may be charged', () => {
    expect(
      computeRunMetrics({ ...refusedRun, firstTokenMs: 30 }, 'partial', toolModel).refused,
    ).toBe(false);
    const fault = {
      ...refusedRun,
      error: { ...refusedRun.error!, status: 502, upstreamStatus: 502 },
    };
    expect(computeRunMetrics(fault, '', toolModel).refused).toBe(false);
  });
});

describe('describeAttempts', () => {
  it.each([
    [undefined, null],
    [null, null],
    [1, null],
    [2, '2 attempts (1 fallback/retry)'],
    [4, '4 attempts (3 fallbacks/retries)'],
  ])('%s → %s', (attempts, text) => {
    expect(describeAttempts(attempts)).toBe(text);
  });
});

describe('the charge of a run', () => {
  const charge = {
    id: baseRun.cfRay!,
    model: 'sim/chat-standard',
    provider: 'simulated',
    prompt_tokens: 11,
    completion_tokens: 98,
    cost_usd: 0.000305,
    outcome: 'ended_early',
    finish_reason: null,
    usage_estimated: false,
    charge_capped: false,
    settlement: 'pending',
    attempts: 1,
    fetched_at: 1,
  };
  const stopped: RunRecord = { ...baseRun, status: 'stopped', usage: null, finishReason: null };

  it('works out the speed of a stopped answer from the charged tokens, once they are known', () => {
    // About 119 tokens of text arrived, the record charged 98: the speed shown beside the
    // charged tokens is theirs, in the second after the first token.
    const metrics = computeRunMetrics(stopped, 'x'.repeat(476), toolModel, undefined, charge);
    expect(metrics.completionTokens).toBe(98);
    expect(metrics.tokensPerSecond).toBe(98);
    expect(metrics.speedEstimated).toBe(false);
    // Before the record is read, tokens and speed are both the text's estimate.
    const before = computeRunMetrics(stopped, 'x'.repeat(476), toolModel);
    expect(before.tokensPerSecond).toBe(119);
    expect(before.speedEstimated).toBe(true);
  });

  it('works out the speed of a broken-off answer from the text received, not the charge', () => {
    const brokenOff: RunRecord = { ...stopped, status: 'error', firstTokenMs: 200, totalMs: 1200 };
    // 400 characters arrived (about 100 tokens) in the second after the first token, but the
    // gateway, cut off, recorded a single completion token.
    const metrics = computeRunMetrics(brokenOff, 'x'.repeat(400), toolModel, undefined, {
      ...charge,
      completion_tokens: 1,
    });
    expect(metrics.completionTokens).toBe(1);
    expect(metrics.tokensPerSecond).toBe(100);
    expect(metrics.speedEstimated).toBe(true);
    const completed = computeRunMetrics(baseRun, 'x'.repeat(400), toolModel, undefined, {
      ...charge,
      outcome: 'completed',
      completion_tokens: 50,
    });
    expect(completed.tokensPerSecond).toBe(50);
    expect(completed.speedEstimated).toBe(false);
  });

  it('takes tokens and cost from the generation record, over the page’s own estimate', () => {
    const estimate = computeRunMetrics(stopped, 'x'.repeat(476), toolModel);
    expect(estimate.basis).toBe('estimate');
    const charged = computeRunMetrics(stopped, 'x'.repeat(476), toolModel, undefined, charge);
    expect(charged).toMatchObject({
      basis: 'charged',
      promptTokens: 11,
      completionTokens: 98,
      costUsd: 0.000305,
      tokensEstimated: false,
      costEstimated: false,
    });
  });

  it('looks the record up for a finished run with a trace id, and for nothing else', () => {
    expect(chargeLookup(stopped, 'text')).toEqual({ profile: 'p', id: baseRun.cfRay });
    expect(chargeLookup({ ...stopped, status: 'streaming' }, 'text')).toBeNull();
    expect(chargeLookup({ ...stopped, cfRay: null }, 'text')).toBeNull();
  });

  it('knows a request the gateway never received: nothing to look up, nothing charged', () => {
    const notSent: RunRecord = {
      ...stopped,
      status: 'error',
      cfRay: null,
      firstTokenMs: null,
      error: {
        message: 'Cannot connect to the gateway.',
        status: 502,
        stage: 'connect',
        upstreamStatus: null,
        cfRay: null,
        advice: null,
        type: null,
      },
    };
    expect(neverSent(notSent)).toBe(true);
    expect(chargeLookup(notSent, '')).toBeNull();
    expect(computeRunMetrics(notSent, '', toolModel)).toMatchObject({
      basis: 'not_sent',
      costUsd: 0,
      costEstimated: false,
    });
    // A gateway that answered (a 502 with its trace id) may have charged: not "not sent".
    expect(
      neverSent({
        ...notSent,
        cfRay: baseRun.cfRay,
        error: { ...notSent.error!, upstreamStatus: 502, stage: 'provider' },
      }),
    ).toBe(false);
  });
});
