import { createSession } from './conversation-state';
import { computeRunMetrics, describeAttempts, estimateCostUsd, formatTokensPerSecond } from './metrics';
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
    const metrics = computeRunMetrics({ ...baseRun, status: 'stopped', usage: null }, 'x'.repeat(400), toolModel);
    expect(metrics.tokensEstimated).toBe(true);
    expect(metrics.completionTokens).toBe(100);
    expect(metrics.promptTokens).toBe(1);
    expect(metrics.costEstimated).toBe(true);
  });

  it('reports no speed for a reply that arrived in one piece', () => {
    expect(computeRunMetrics({ ...baseRun, firstTokenMs: 40, totalMs: 41 }, '', toolModel).tokensPerSecond).toBeNull();
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
    expect(computeRunMetrics({ ...refusedRun, firstTokenMs: 30 }, 'partial', toolModel).refused).toBe(false);
    const fault = { ...refusedRun, error: { ...refusedRun.error!, status: 502, upstreamStatus: 502 } };
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
