/**
 * The counts an upstream reports are what the gateway charges, so they are read as a bill: over
 * real HTTP, against fake upstreams of each kind on loopback that report negative, fractional,
 * absurd or partial usage. A count that is not a whole number from 0 up is counted by the gateway
 * instead (and the record says the usage is estimated); no answer gives money back to a key.
 */
import { countTokens } from 'gpt-tokenizer';
import { balanceSchema, generationRecordSchema } from '../../contract/gateway';
import { loadTokenizer } from '../pipeline/usage-estimate';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import { startFakeUpstream, type FakeUpstream } from '../test-kit/fake-upstream';
import { readFormAnswer, callForm } from '../test-kit/public-forms';
import { fixtureJson, providersFileFor } from '../test-kit/upstream-kit';
import { getWithKey, startTestGateway, toNanos, type TestGateway } from '../testing-support';

const PROMPT_NANOS = 1_000;
const COMPLETION_NANOS = 2_000;
const QUESTION = 'Hello there';

const fakes = {} as Record<UpstreamKind, FakeUpstream>;
let gateway: TestGateway;

beforeAll(async () => {
  await loadTokenizer();
  for (const kind of ['openai-compatible', 'anthropic', 'gemini'] as const) {
    fakes[kind] = await startFakeUpstream();
  }
  const setup = providersFileFor(
    (['openai-compatible', 'anthropic', 'gemini'] as const).map((kind) => ({
      id: kind.replace('-', '_'),
      kind,
      url: fakes[kind].url,
      retry: { max_attempts: 1 },
      models: [
        {
          id: `usage/${kind}`,
          upstreamModel: `${kind}-model`,
          prompt: '0.000001',
          completion: '0.000002',
        },
      ],
    })),
  );
  gateway = await startTestGateway({ providers: setup.providers, settleIntervalMs: 600_000 });
});
afterAll(async () => {
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake.close();
});

/** A plain chat-completions request for one of the models, answered by `body`. */
async function askAnswered(kind: UpstreamKind, body: Record<string, unknown>, as: string) {
  fakes[kind].reply({ body });
  const response = await callForm(
    'chat_completions',
    gateway.url,
    as,
    `usage/${kind}`,
    { messages: [{ role: 'user', content: QUESTION }], max_tokens: 200 },
    { stream: false },
  );
  expect(response.status).toBe(200);
  const answer = await readFormAnswer('chat_completions', response, false);
  const record = await generationOf(response.headers.get('cf-ray')!, as);
  return { answer, record };
}

async function generationOf(cfRay: string, as: string) {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${cfRay}`, as);
  expect(response.status).toBe(200);
  return generationRecordSchema.parse(await response.json());
}

/** Each kind's recorded plain answer, with its usage replaced by `counts`. */
function answerReporting(
  kind: UpstreamKind,
  counts: { prompt: unknown; completion: unknown } | 'prompt missing',
): { body: Record<string, unknown>; text: string } {
  switch (kind) {
    case 'openai-compatible': {
      const body = fixtureJson(kind, 'openai-text-response.json');
      body.usage =
        counts === 'prompt missing'
          ? { completion_tokens: 7 }
          : { prompt_tokens: counts.prompt, completion_tokens: counts.completion };
      return {
        body,
        text: 'The image shows a wooden boardwalk path running through a lush green field or meadow.',
      };
    }
    case 'anthropic': {
      const body = fixtureJson(kind, 'anthropic-text-response.json');
      body.usage =
        counts === 'prompt missing'
          ? { output_tokens: 7 }
          : { input_tokens: counts.prompt, output_tokens: counts.completion };
      return { body, text: 'Hi! My name is Claude.' };
    }
    case 'gemini': {
      const body = fixtureJson(kind, 'gemini-text-response.json');
      body.usageMetadata =
        counts === 'prompt missing'
          ? { candidatesTokenCount: 7 }
          : { promptTokenCount: counts.prompt, candidatesTokenCount: counts.completion };
      return { body, text: 'AI learns patterns from data to make predictions or decisions.' };
    }
  }
}

const KINDS: UpstreamKind[] = ['openai-compatible', 'anthropic', 'gemini'];

describe.each(KINDS)('usage reported by a %s upstream', (kind) => {
  it.each([
    { what: 'a negative prompt count', prompt: -1_000_000, completion: 5 },
    { what: 'a negative completion count', prompt: 5, completion: -1_000_000 },
    { what: 'fractional counts', prompt: 0.0005, completion: 0.0001 },
    { what: 'a count past any context window', prompt: 1e300, completion: 5 },
    { what: 'counts sent as text', prompt: '12', completion: '5' },
  ])('$what is counted by the gateway, never charged as sent', async ({ prompt, completion }) => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { body, text } = answerReporting(kind, { prompt, completion });
    const { answer, record } = await askAnswered(kind, body, key);
    expect(answer.text).toBe(text);
    // Counts the gateway cannot bill are replaced by its own; a valid one is kept as sent.
    const counted = {
      prompt:
        Number.isSafeInteger(prompt) && (prompt as number) >= 0 ? prompt : countTokens(QUESTION),
      completion:
        Number.isSafeInteger(completion) && (completion as number) >= 0
          ? completion
          : countTokens(text),
    };
    expect(answer.usage).toEqual(counted);
    expect(record).toMatchObject({
      usage_estimated: true,
      prompt_tokens: counted.prompt,
      completion_tokens: counted.completion,
    });
    const cost = toNanos(record.cost_usd);
    expect(Number.isSafeInteger(cost)).toBe(true);
    expect(cost).toBe(
      (counted.prompt as number) * PROMPT_NANOS + (counted.completion as number) * COMPLETION_NANOS,
    );
    // Settled, the key has spent what it was charged: nothing was given back.
    await gateway.gateway.settlement.settleNow();
    const balance = balanceSchema.parse(
      await (await getWithKey(`${gateway.url}/v1/balance`, key)).json(),
    );
    expect(toNanos(balance.consumption_usd)).toBe(cost);
    expect(toNanos(balance.remaining_usd)).toBe(toNanos(1) - cost);
  });

  it('a missing prompt count is counted by the gateway; the completion count is kept', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { body } = answerReporting(kind, 'prompt missing');
    const { answer, record } = await askAnswered(kind, body, key);
    const counted = { prompt: countTokens(QUESTION), completion: 7 };
    expect(answer.usage).toEqual(counted);
    expect(record).toMatchObject({
      usage_estimated: true,
      prompt_tokens: counted.prompt,
      completion_tokens: 7,
    });
    expect(toNanos(record.cost_usd)).toBe(
      counted.prompt * PROMPT_NANOS + counted.completion * COMPLETION_NANOS,
    );
  });

  it('whole counts from 0 up are charged as reported, and the record says so', async () => {
    const { key } = await gateway.createKey({ kind: 'account', limitUsd: 1 });
    const { body } = answerReporting(kind, { prompt: 31, completion: 9 });
    const { answer, record } = await askAnswered(kind, body, key);
    expect(answer.usage).toEqual({ prompt: 31, completion: 9 });
    expect(record).toMatchObject({
      usage_estimated: false,
      prompt_tokens: 31,
      completion_tokens: 9,
    });
    expect(toNanos(record.cost_usd)).toBe(31 * PROMPT_NANOS + 9 * COMPLETION_NANOS);
  });
});
