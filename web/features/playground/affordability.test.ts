import type { BalanceView } from '../../../contract/workbench-api';
import { roundDownTokens, worstCaseShortfall } from './affordability';
import { catalogModel } from './test-fixtures';

const balance = (remaining: number, grace = 0) =>
  ({ remaining_usd: remaining, grace_usd: grace }) as BalanceView['balance'];
// $1 per million prompt tokens, $3 per million completion tokens.
const model = catalogModel({ id: 'sim/chat-standard' });

describe('worstCaseShortfall', () => {
  it('is null while the key can afford the worst case, grace included', () => {
    expect(
      worstCaseShortfall({ balance: balance(0.01), model, promptTokens: 100, maxTokens: 1000 }),
    ).toBeNull();
    // $0.0031 worst case against $0.003 left and $0.001 of grace.
    expect(
      worstCaseShortfall({
        balance: balance(0.003, 0.001),
        model,
        promptTokens: 100,
        maxTokens: 1000,
      }),
    ).toBeNull();
  });

  it('says how many output tokens the key can afford, and a round max_tokens under that', () => {
    // $0.001 left, $0.0001 of it for the prompt: $0.0009 / $0.000003 = 300 tokens.
    const shortfall = worstCaseShortfall({
      balance: balance(0.001),
      model,
      promptTokens: 100,
      maxTokens: 1024,
    });
    expect(shortfall).toMatchObject({ affordableOutputTokens: 300, suggestedMaxTokens: 300 });
    expect(shortfall?.worstCaseUsd).toBeCloseTo(0.0001 + 0.003072, 9);
  });

  it('counts the model’s output limit when max_tokens is left to the model', () => {
    const shortfall = worstCaseShortfall({
      balance: balance(0.01),
      model,
      promptTokens: 0,
      maxTokens: null,
    });
    // 8,192 output tokens × $0.000003 = $0.024576.
    expect(shortfall?.worstCaseUsd).toBeCloseTo(0.024576, 9);
  });

  it('offers no max_tokens when not even the prompt is affordable', () => {
    expect(
      worstCaseShortfall({ balance: balance(0), model, promptTokens: 100, maxTokens: 10 }),
    ).toMatchObject({ affordableOutputTokens: 0, suggestedMaxTokens: null });
  });
});

describe('roundDownTokens', () => {
  it('rounds down to a figure a person would type', () => {
    expect(roundDownTokens(329)).toBe(300);
    expect(roundDownTokens(1480)).toBe(1400);
    expect(roundDownTokens(47)).toBe(40);
    expect(roundDownTokens(7)).toBe(7);
  });
});
