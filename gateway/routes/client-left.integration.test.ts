/**
 * A client that leaves before a plain (non-streamed) answer is ready: nothing failed on the
 * gateway's side, so no error is log.text(); the request is log.text() as ended early and charged for
 * what the provider had produced.
 */
import type { CanonicalEvent } from '../canonical/model';
import type { Provider } from '../providers/provider';
import {
  bearer,
  chatBody,
  eventually,
  postJson,
  capturingLogger,
  startTestGateway,
  type TestGateway,
} from '../../testing/gateway-support';

/** Produces one token, then waits until the caller aborts, as a slow upstream would. */
const slowProvider: Provider = {
  id: 'simulated',
  kind: 'simulated',
  async *stream(_request, _model, signal) {
    yield { type: 'text-delta', text: 'Hello' } satisfies CanonicalEvent;
    await new Promise<void>((resolve) =>
      signal.addEventListener('abort', () => resolve(), { once: true }),
    );
  },
};

let gateway: TestGateway;
const log = capturingLogger();

beforeAll(async () => {
  gateway = await startTestGateway({}, { providers: [slowProvider], logger: log.logger });
});
afterAll(() => gateway.stop());

it('logs a plain request the client left as ended early, not as a failure, and records it', async () => {
  const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
  const abort = new AbortController();
  const pending = postJson(`${gateway.url}/v1/chat/completions`, chatBody(), {
    key,
    signal: abort.signal,
  });
  // Admitted and running: its reservation is held.
  const id = await issuedId(key);
  await eventually(async () =>
    (await gateway.gateway.parts.budget.reservedFor(id)) > 0 ? true : undefined,
  );
  abort.abort();
  await expect(pending).rejects.toThrow();

  const line = await eventually(() =>
    log
      .text()
      .split('\n')
      .filter(Boolean)
      .map((text) => JSON.parse(text) as Record<string, unknown>)
      .find((entry) => entry.path === '/v1/chat/completions'),
  );
  expect(line).toMatchObject({ clientLeft: true, level: 30 });
  expect(log.text()).not.toContain('request failed');

  const record = await eventually(async () => {
    const response = await fetch(`${gateway.url}/v1/generation?id=${line.cfRay as string}`, {
      headers: bearer(key),
    });
    return response.ok
      ? ((await response.json()) as { outcome: string; completion_tokens: number })
      : undefined;
  });
  expect(record).toMatchObject({ outcome: 'ended_early', completion_tokens: 1 });
});

async function issuedId(key: string): Promise<string> {
  return (await gateway.gateway.parts.registry.findByKey(key))!.id;
}
