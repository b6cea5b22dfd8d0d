/**
 * A gateway killed (SIGKILL) in the middle of a 1,000-line batch finishes it after a restart on
 * the same database: exactly 1,000 results, 1,000 charged records naming the batch, and the key's
 * consumption their sum (docs/batches.md). Real processes, the official `openai` client.
 */
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import OpenAI, { toFile } from 'openai';
import { afterAll, describe, expect, it } from 'vitest';
import { startGatewayProcess, type GatewayProcess } from '../../testing/gateway-process';
import { eventually } from '../../testing/eventually';

const LINES = 1_000;
const running: GatewayProcess[] = [];
let folder: string | undefined;

afterAll(async () => {
  for (const gateway of running) await gateway.stop();
  if (folder) fs.rmSync(folder, { recursive: true, force: true });
});

const line = (index: number) =>
  JSON.stringify({
    custom_id: `row-${index}`,
    method: 'POST',
    url: '/v1/chat/completions',
    body: {
      model: 'sim/chat-standard',
      messages: [{ role: 'user', content: `Label row ${index}` }],
      max_tokens: 16,
    },
  });

describe('a batch through a crash', () => {
  it('finishes after SIGKILL and a restart with every line charged exactly once', async () => {
    const first = await startGatewayProcess();
    running.push(first);
    folder = path.dirname(first.dbPath);
    const issued = await first.createKey(['--kind', 'account', '--limit-usd', '10']);
    const clientOf = (gateway: GatewayProcess) =>
      new OpenAI({ apiKey: issued.key, baseURL: `${gateway.baseUrl}/v1`, maxRetries: 0 });
    const before = clientOf(first);
    const file = await before.files.create({
      file: await toFile(
        Buffer.from(Array.from({ length: LINES }, (_, index) => line(index)).join('\n')),
        'rows.jsonl',
      ),
      purpose: 'batch',
    });
    const { id } = await before.batches.create({
      input_file_id: file.id,
      endpoint: '/v1/chat/completions',
      completion_window: '24h',
    });
    await eventually(async () => {
      const batch = await before.batches.retrieve(id);
      return batch.request_counts!.completed >= 50 ? true : undefined;
    }, 60_000);
    await first.kill('SIGKILL');

    const database = new Database(first.dbPath, { readonly: true });
    const openLines = () =>
      (
        database
          .prepare(
            "SELECT COUNT(*) AS lines FROM batch_lines WHERE batch_id = ? AND state IN ('pending', 'running')",
          )
          .get(id) as { lines: number }
      ).lines;
    // Killed in the middle: lines were left to run.
    expect(openLines()).toBeGreaterThan(0);

    const second = await startGatewayProcess({ dbPath: first.dbPath });
    running.push(second);
    const after = clientOf(second);
    const batch = await eventually(async () => {
      const current = await after.batches.retrieve(id);
      return current.status === 'completed' ? current : undefined;
    }, 120_000);
    expect(batch.request_counts).toEqual({ total: LINES, completed: LINES, failed: 0 });
    const results = (await (await after.files.content(batch.output_file_id!)).text())
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text) as { custom_id: string; response: { request_id: string } });
    expect(results).toHaveLength(LINES);
    expect(new Set(results.map((result) => result.custom_id)).size).toBe(LINES);

    const records = database
      .prepare(
        'SELECT COUNT(*) AS count, SUM(cost_nanos) AS cost FROM generations WHERE batch_id = ?',
      )
      .get(id) as { count: number; cost: number };
    expect(records.count).toBe(LINES);
    // Each result names its own record.
    expect(new Set(results.map((result) => result.response.request_id)).size).toBe(LINES);
    // Once settled, the key's consumption is the records' sum: nothing lost, nothing twice.
    await eventually(() => {
      const key = database
        .prepare('SELECT consumption_nanos, pending_nanos FROM keys WHERE id = ?')
        .get(issued.id) as { consumption_nanos: number; pending_nanos: number };
      return key.pending_nanos === 0 ? key.consumption_nanos : undefined;
    }).then((consumption) => expect(consumption).toBe(records.cost));
    database.close();
  }, 240_000);
});
