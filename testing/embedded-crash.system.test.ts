/**
 * The embedded gateway (one process on its SQLite file) killed mid-stream: at its next start it
 * closes the streams it was serving as `ended_early` records charging what was checkpointed, so
 * a crash leaves no delivered token uncharged.
 */
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { callForm } from './upstreams/public-forms';
import { startGatewayProcess, type GatewayProcess } from './gateway-process';

const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'embedded-crash-'));
const dbPath = path.join(folder, 'gateway.db');
const started: GatewayProcess[] = [];

afterAll(async () => {
  await Promise.all(started.map((gateway) => gateway.stop()));
  fs.rmSync(folder, { recursive: true, force: true });
});

describe('an embedded gateway killed mid-stream', () => {
  it('charges the cut streams at its next start', async () => {
    const environment = {
      GATEWAY_SIM_TOKENS_PER_SECOND: '10',
      GATEWAY_KEY_PEPPER: 'crash-test-pepper-long-enough',
    };
    const first = await startGatewayProcess({ dbPath, environment });
    started.push(first);
    const account = await first.createKey(['--kind', 'account', '--limit-usd', '1']);
    const streams = Array.from({ length: 4 }, async () => {
      const response = await callForm(
        'chat_completions',
        first.baseUrl,
        account.key,
        'sim/chat-standard',
        { messages: [{ role: 'user', content: 'Tell me about gateways.' }], max_tokens: 400 },
        { stream: true },
      );
      const rayId = response.headers.get('cf-ray')!;
      let received = 0;
      try {
        for await (const chunk of response.body!) received += (chunk as Uint8Array).byteLength;
      } catch {
        // Cut by the kill.
      }
      return { rayId, received };
    });
    // Past two checkpoints (once a second), then no shutdown at all.
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    await first.kill('SIGKILL');
    const cut = await Promise.all(streams);
    expect(cut.every((stream) => stream.received > 0)).toBe(true);

    const second = await startGatewayProcess({ dbPath, environment });
    started.push(second);
    const database = new Database(dbPath, { readonly: true });
    try {
      const records = database
        .prepare(
          `SELECT id, outcome, completion_tokens AS completion, cost_nanos AS cost FROM generations
           WHERE id IN (${cut.map(() => '?').join(', ')})`,
        )
        .all(...cut.map((stream) => stream.rayId)) as Array<{
        id: string;
        outcome: string;
        completion: number;
        cost: number;
      }>;
      expect(records).toHaveLength(cut.length);
      for (const record of records) {
        expect(record.outcome).toBe('ended_early');
        expect(record.completion).toBeGreaterThan(0);
        expect(record.cost).toBeGreaterThan(0);
      }
      expect(database.prepare('SELECT COUNT(*) AS n FROM inflight').get()).toEqual({ n: 0 });
    } finally {
      database.close();
    }
    // The restarted gateway serves, and its generation route shows the closed record.
    const record = await fetch(`${second.baseUrl}/v1/generation?id=${cut[0]!.rayId}`, {
      headers: { authorization: `Bearer ${account.key}` },
    });
    expect(record.status).toBe(200);
  });
});
