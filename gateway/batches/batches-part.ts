/**
 * The batch runner as a part: batches run in the background of every instance, after interactive
 * traffic. Made last and closed first: the lines running end, and their records go out with the
 * pipeline's last flush.
 */
import type { KeyEvents } from '../events/key-events';
import type { GatewayParts } from '../routes/route-kit';
import type { Assembled } from '../shared/assembly';
import { BatchRunner } from './batch-runner';

export function createBatches(
  parts: GatewayParts,
  events: { keyEvents: KeyEvents; wake(): void },
): Assembled<{ batchRunner: BatchRunner }> {
  const batchRunner = new BatchRunner(parts, async (batch, counts) => {
    if ((await events.keyEvents.batchEnded(batch, counts)) > 0) events.wake();
  });
  batchRunner.start();
  return { part: { batchRunner }, close: () => batchRunner.close() };
}
