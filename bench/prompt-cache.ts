/**
 * The prompt-cache replay: the recorded 30-turn Claude Code session sent to a test upstream that
 * caches by prefix as the vendors do, directly and through this gateway (in-process, its providers
 * file pointing each kind at that upstream), to each provider kind. Prints the cache hit ratio
 * both ways and what the gateway charged against the upstream's usage at the model's prices
 * (testing/upstreams/prompt-cache-replay.ts; docs/performance.md).
 *
 * Usage: npm run --silent bench:cache   (also run as part of `npm run bench`)
 *   writes bench/results/prompt-cache-<date>.json and bench/results/prompt-cache-latest.json
 */
import fs from 'node:fs';
import path from 'node:path';
import { claudeCodeSession } from '../testing/upstreams/agent-session';
import { startPrefixCacheUpstream } from '../testing/upstreams/prefix-cache-upstream';
import {
  replayAll,
  replayProviders,
  type ReplayComparison,
} from '../testing/upstreams/prompt-cache-replay';
import { providersFileFor } from '../testing/upstreams/upstream-kit';
import { startTestGateway } from '../testing/gateway-support';

export type PromptCacheResults = {
  date: string;
  turns: number;
  comparisons: ReplayComparison[];
};

/** Replays the whole session for every comparison; everything listens on 127.0.0.1. */
export async function measurePromptCache(): Promise<PromptCacheResults> {
  const session = claudeCodeSession();
  const upstream = await startPrefixCacheUpstream(session);
  try {
    const setup = providersFileFor(replayProviders(upstream.url));
    const gateway = await startTestGateway({ providers: setup.providers });
    try {
      const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1_000 });
      const comparisons = await replayAll(
        upstream,
        { url: gateway.url, key },
        session,
        'direct-client',
      );
      return { date: new Date().toISOString(), turns: session.exchanges.length, comparisons };
    } finally {
      await gateway.stop();
    }
  } finally {
    await upstream.close();
  }
}

const percent = (ratio: number) => `${(ratio * 100).toFixed(2)} %`;
const usd = (nanos: number) => `$${(nanos / 1e9).toFixed(6)}`;

/** The report's section: one line per comparison. */
export function formatPromptCache(results: PromptCacheResults): string {
  const rows = results.comparisons.map(({ kind, form, direct, gateway }) => {
    const charged = gateway.chargedNanos.reduce((total, nanos) => total + nanos, 0);
    const differing = gateway.chargedNanos.filter(
      (nanos, turn) => nanos !== gateway.pricedNanos[turn],
    ).length;
    return (
      `  ${`${form} → ${kind}`.padEnd(32)} hit ratio direct ${percent(direct.hitRatio)}, ` +
      `through the gateway ${percent(gateway.hitRatio)}; charged ${usd(charged)}, ` +
      `upstream usage priced ${usd(gateway.upstreamNanos)} (difference ${usd(charged - gateway.upstreamNanos)}, ` +
      `${differing} of ${gateway.turns} turns differ); direct ${usd(direct.upstreamNanos)}`
    );
  });
  return [
    `Prompt cache, a recorded ${results.turns}-turn Claude Code session to a prefix-caching upstream:`,
    ...rows,
  ].join('\n');
}

if (process.argv[1]?.endsWith('prompt-cache.ts')) {
  const results = await measurePromptCache();
  console.log(formatPromptCache(results));
  const folder = path.join(import.meta.dirname, 'results');
  fs.mkdirSync(folder, { recursive: true });
  const text = `${JSON.stringify(results, null, 2)}\n`;
  const file = path.join(folder, `prompt-cache-${results.date.replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(file, text);
  fs.writeFileSync(path.join(folder, 'prompt-cache-latest.json'), text);
  console.log(`Written: bench/results/${path.basename(file)} (and prompt-cache-latest.json).`);
}
