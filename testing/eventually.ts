/**
 * Waits for a state: polls `check` until it gives a value other than undefined (an error it
 * throws counts as not yet), and fails after `timeoutMs`. The bound only ends a wait that would
 * never end; it is generous because two busy workers on two cores can take seconds to get there,
 * and a passing test never waits for it. `explain` adds the state the check waited on to the
 * failure's message.
 */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 10_000,
  explain?: () => Promise<string>,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    if (Date.now() > deadline) {
      const state = explain ? `; ${await explain().catch(String)}` : '';
      const cause = lastError ? `: ${String(lastError)}` : '';
      throw new Error(`condition not met within ${timeoutMs} ms${cause}${state}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
