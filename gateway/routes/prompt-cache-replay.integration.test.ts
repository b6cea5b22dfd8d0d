/**
 * A recorded Claude Code session replayed through the gateway to a test upstream that caches by
 * prefix as the vendors do, to each provider kind (and a chat client's, with OpenRouter's cache
 * breakpoints, to Anthropic): the cache hits as often as with the session sent directly, and each
 * turn is charged the upstream's usage at the model's prices. A few turns here; `npm run bench`
 * replays all 30 (docs/performance.md).
 */
import { claudeCodeSession } from '../../testing/upstreams/agent-session';
import {
  startPrefixCacheUpstream,
  type PrefixCacheUpstream,
} from '../../testing/upstreams/prefix-cache-upstream';
import {
  replayAll,
  replayProviders,
  type ReplayComparison,
} from '../../testing/upstreams/prompt-cache-replay';
import { providersFileFor } from '../../testing/upstreams/upstream-kit';
import { startTestGateway, type TestGateway } from '../../testing/gateway-support';

const session = claudeCodeSession(5);
let upstream: PrefixCacheUpstream;
let gateway: TestGateway;
let comparisons: ReplayComparison[];

beforeAll(async () => {
  upstream = await startPrefixCacheUpstream(session);
  const setup = providersFileFor(replayProviders(upstream.url));
  gateway = await startTestGateway({ providers: setup.providers });
  const { key } = await gateway.createKey({ kind: 'account', limitUsd: 100 });
  // The direct runs use a key of their own, so their cache is not the gateway's.
  comparisons = await replayAll(upstream, { url: gateway.url, key }, session, 'direct-client');
});
afterAll(async () => {
  await gateway?.stop();
  await upstream?.close();
});

describe('a recorded Claude Code session through the gateway', () => {
  it('runs every comparison over every turn', () => {
    expect(comparisons.map((comparison) => `${comparison.form} → ${comparison.kind}`)).toEqual([
      'messages → anthropic',
      'chat_completions → anthropic',
      'messages → openai-compatible',
      'messages → gemini',
    ]);
    for (const { direct, gateway: through } of comparisons) {
      expect(direct.turns).toBe(session.exchanges.length);
      expect(through.turns).toBe(session.exchanges.length);
    }
  });

  it('hits the prompt cache as often as the session sent directly, to each kind', () => {
    for (const { kind, form, direct, gateway: through } of comparisons) {
      const label = `${form} → ${kind}`;
      // The session is long enough to cache from its second turn on.
      expect(direct.hitRatio, label).toBeGreaterThan(0.5);
      expect(through.hitRatio, label).toBe(direct.hitRatio);
      expect(through.promptTokens, label).toBe(direct.promptTokens);
      expect(through.cacheWriteTokens, label).toBe(direct.cacheWriteTokens);
    }
  });

  it('charges each turn the upstream’s usage at the model’s prices', () => {
    for (const { kind, form, direct, gateway: through } of comparisons) {
      const label = `${form} → ${kind}`;
      expect(through.chargedNanos, label).toEqual(through.pricedNanos);
      expect(through.upstreamNanos, label).toBe(direct.upstreamNanos);
    }
    // Anthropic's cache writes cost more than the prompt: the first turn writes, later ones read.
    const anthropic = comparisons[0]!.gateway;
    expect(anthropic.cacheWriteTokens).toBeGreaterThan(0);
    expect(anthropic.pricedNanos[1]!).toBeLessThan(anthropic.pricedNanos[0]!);
  });
});
