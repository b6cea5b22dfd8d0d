/**
 * The batch store's contract (batches.ts), run against both engines by their store integration
 * tests: lines are claimed once, a lapsed claim is taken again, a batch ends once.
 */
import { describe, expect, it } from 'vitest';
import { storesClosedAfterEach, type StoreFactory } from './store-contract';
import { resultFileId, type BatchLineRow, type BatchRow } from './batches';

const batch = (overrides: Partial<BatchRow> = {}): BatchRow => ({
  id: 'batch_contract',
  keyId: 'key_a',
  shape: 'openai',
  endpoint: '/v1/chat/completions',
  inputFileId: 'file-in',
  metadata: { team: 'évals' },
  status: 'in_progress',
  outputFileId: null,
  errorFileId: null,
  createdAt: 1_700_000_000,
  inProgressAt: 1_700_000_000,
  cancellingAt: null,
  endedAt: null,
  expiresAt: 1_700_086_400,
  eventSent: false,
  ...overrides,
});

const lines = (count: number, batchId = 'batch_contract'): BatchLineRow[] =>
  Array.from({ length: count }, (_, index) => ({
    batchId,
    index,
    customId: `line-${index}`,
    request: { model: 'sim/chat-standard', messages: [{ role: 'user', content: `n${index}` }] },
    state: 'pending',
    claimedBy: null,
    leaseExpiresAt: null,
    statusCode: null,
    result: null,
    generationId: null,
    costNanos: 0,
  }));

const succeeded = (costNanos: number) => ({
  state: 'succeeded' as const,
  statusCode: 200,
  result: { id: 'chatcmpl-1' },
  generationId: 'abc',
  costNanos,
});

export function describeBatchStoreContract(factory: StoreFactory): void {
  const { open, openAnother } = storesClosedAfterEach(factory);

  describe('batches', () => {
    it('keeps files and batches as given, seen by another store', async () => {
      const store = await open();
      const other = await openAnother();
      const file = {
        id: 'file-in',
        keyId: 'key_a',
        purpose: 'batch' as const,
        filename: 'in.jsonl',
        bytes: 12,
        content: '{"a":1}\n',
        batchId: null,
        createdAt: 1_700_000_000,
      };
      await store.batches.insertFile(file);
      expect(await other.batches.getFile('file-in')).toEqual(file);
      await store.batches.createBatch(batch(), lines(150));
      expect(await other.batches.getBatch('batch_contract')).toEqual(batch());
      expect((await other.batches.counts('batch_contract')).pending).toBe(150);
      expect(await other.batches.listBatches('key_a', 'openai', { limit: 5 })).toEqual([batch()]);
      expect(await other.batches.listBatches('key_a', 'anthropic', { limit: 5 })).toEqual([]);
      expect(await other.batches.deleteFile('file-in')).toBe(true);
      expect(await store.batches.deleteFile('file-in')).toBe(false);
    });

    it('gives each line to one claimer, takes a lapsed claim again, and ends the batch once', async () => {
      const store = await open();
      const other = await openAnother();
      await store.batches.createBatch(batch(), lines(10));
      // One store racing itself: on PostgreSQL its calls take connections of their own, a real
      // race; two SQLite stores in one process would wait on each other's lock.
      const [first, second] = await Promise.all([
        store.batches.claimLines('batch_contract', 'one', 5_000, 1_000, 6),
        store.batches.claimLines('batch_contract', 'two', 5_000, 1_000, 6),
      ]);
      const claimed = [...first!, ...second!].map((line) => line.index).sort((a, b) => a - b);
      expect(claimed).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
      expect(first!.every((line) => line.claimedBy === 'one' && line.state === 'running')).toBe(
        true,
      );
      // Before the lease ends nothing is free; after it, "one"'s lines are taken by "three".
      expect(await store.batches.claimLines('batch_contract', 'three', 9_000, 4_999, 10)).toEqual(
        [],
      );
      await other.batches.renewLines(
        'two',
        20_000,
        second!.map((line) => ({ batchId: line.batchId, index: line.index })),
      );
      const retaken = await store.batches.claimLines('batch_contract', 'three', 9_000, 6_000, 10);
      expect(retaken.map((line) => line.index)).toEqual(first!.map((line) => line.index));
      // "one" lost its claims: its results are refused.
      expect(
        await store.batches.finishLine('batch_contract', first![0]!.index, 'one', succeeded(5)),
      ).toBe(false);
      for (const line of retaken) {
        expect(
          await store.batches.finishLine('batch_contract', line.index, 'three', succeeded(5)),
        ).toBe(true);
      }
      expect(await store.batches.finish('batch_contract', 1_700_000_100)).toBeUndefined();
      for (const line of second!) {
        await other.batches.finishLine('batch_contract', line.index, 'two', {
          state: 'errored',
          statusCode: 402,
          result: { error: { message: 'spent' } },
          generationId: null,
          costNanos: 0,
        });
      }
      expect(await store.batches.counts('batch_contract')).toMatchObject({
        total: 10,
        succeeded: first!.length,
        errored: second!.length,
        costNanos: 5 * first!.length,
      });
      const ended = await Promise.all([
        store.batches.finish('batch_contract', 1_700_000_100),
        store.batches.finish('batch_contract', 1_700_000_100),
      ]);
      expect(ended.filter(Boolean)).toHaveLength(1);
      expect(await store.batches.getBatch('batch_contract')).toMatchObject({
        status: 'completed',
        endedAt: 1_700_000_100,
        outputFileId: resultFileId('batch_contract', 'batch_output'),
        errorFileId: resultFileId('batch_contract', 'batch_errors'),
      });
      expect(
        (await store.batches.getFile(resultFileId('batch_contract', 'batch_errors')))?.batchId,
      ).toBe('batch_contract');
      const errored = await other.batches.lines('batch_contract', ['errored'], {
        fromIndex: 0,
        limit: 100,
      });
      expect(errored.map((line) => line.index)).toEqual(second!.map((line) => line.index));
      expect(errored[0]!.result).toEqual({ error: { message: 'spent' } });
      expect(await store.batches.markEventSent('batch_contract')).toBe(true);
      expect(await other.batches.markEventSent('batch_contract')).toBe(false);
    });

    it('cancels only lines not yet running, and ends as cancelled once those end', async () => {
      const store = await open();
      await store.batches.createBatch(batch(), lines(5));
      const [running] = await store.batches.claimLines('batch_contract', 'one', 5_000, 0, 1);
      expect((await store.batches.cancel('batch_contract', 1_700_000_050))?.status).toBe(
        'cancelling',
      );
      expect(await store.batches.claimLines('batch_contract', 'one', 5_000, 0, 5)).toEqual([]);
      expect(await store.batches.finish('batch_contract', 1_700_000_060)).toBeUndefined();
      await store.batches.finishLine('batch_contract', running!.index, 'one', succeeded(7));
      expect(await store.batches.finish('batch_contract', 1_700_000_060)).toMatchObject({
        status: 'cancelled',
        errorFileId: null,
      });
      expect(await store.batches.counts('batch_contract')).toMatchObject({
        succeeded: 1,
        cancelled: 4,
        costNanos: 7,
      });
    });
  });
}
