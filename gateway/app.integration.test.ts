/**
 * The gateway's assembly: `close` ends every part it started. A part whose close forgets its
 * timer, thread or connection leaves it behind, and this finds it.
 */
import { createGateway } from './app';
import { createLogger } from './logger';
import { testConfig } from '../testing/gateway-support';

/** How many of each kind of resource keep the process alive now (threads, sockets, files). */
function resources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const kind of process.getActiveResourcesInfo())
    counts.set(kind, (counts.get(kind) ?? 0) + 1);
  return counts;
}

describe('createGateway', () => {
  afterEach(() => vi.restoreAllMocks());

  it('leaves nothing running once closed: no thread, handle or repeating timer', async () => {
    // Repeating timers are unref'd, which the resource count does not see: each is followed from
    // its start (where it was started, for the failure's message) to its clearing.
    const running = new Map<unknown, string>();
    const { setInterval: startInterval, clearInterval: stopInterval } = globalThis;
    vi.spyOn(globalThis, 'setInterval').mockImplementation(((
      ...args: Parameters<typeof setInterval>
    ) => {
      const timer = startInterval(...args);
      const stack = new Error().stack?.split('\n') ?? [];
      running.set(timer, stack.find((line) => /gateway\/(?!app\.integration)/.test(line)) ?? '?');
      return timer;
    }) as typeof setInterval);
    vi.spyOn(globalThis, 'clearInterval').mockImplementation((timer) => {
      running.delete(timer);
      stopInterval(timer);
    });
    const before = resources();
    const gateway = await createGateway(testConfig(), { logger: createLogger('silent') });
    expect(running.size).toBeGreaterThan(0);
    await gateway.close();
    const left = [...resources()].filter(([kind, count]) => count > (before.get(kind) ?? 0));
    expect(left).toEqual([]);
    expect([...running.values()]).toEqual([]);
  });
});
