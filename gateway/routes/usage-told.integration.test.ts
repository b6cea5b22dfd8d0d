/**
 * Usage told right in every form: each provider kind's upstream reports cache reads, cache writes
 * and reasoning tokens (its recorded answers with their usage changed), and for every public form,
 * plain and streamed, what the client is told (read in the form's own meaning of "input") and
 * what the generation record charged must both be what the upstream reported. The Messages form's
 * stream is read as the vendor's client reads it, and by `@anthropic-ai/sdk` itself.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { PublicFormName } from '../canonical/model';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import {
  KIND_PROVIDERS,
  startKindUpstreams,
  type KindUpstreams,
} from '../../testing/upstreams/kind-upstreams';
import { callForm, parseSse, PUBLIC_FORMS } from '../../testing/upstreams/public-forms';
import { fixtureEvents, fixtureJson, UPSTREAM_KINDS } from '../../testing/upstreams/upstream-kit';
import type { FakeReply } from '../../testing/upstreams/fake-upstream';
import { getWithKey, startTestGateway, type TestGateway } from '../../testing/gateway-support';

/** A usage in the canonical meaning: the whole prompt, and of it the cache's part. */
type Counts = {
  prompt: number;
  cacheRead: number;
  cacheWrite: number;
  /** Of `cacheWrite`, to a one-hour cache entry. */
  cacheWriteHour: number;
  completion: number;
  /** Of `completion`, spent reasoning. */
  reasoning: number;
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/**
 * What each kind's upstream reports, in the canonical meaning. Gemini has no count of cache
 * writes, and only Anthropic splits them by lifetime.
 */
const REPORTED: Record<UpstreamKind, Counts> = {
  anthropic: {
    prompt: 200 + 1500 + 3000,
    cacheRead: 3000,
    cacheWrite: 1500,
    cacheWriteHour: 1000,
    completion: 120,
    reasoning: 80,
  },
  'openai-compatible': {
    prompt: 4700,
    cacheRead: 3000,
    cacheWrite: 1500,
    cacheWriteHour: 0,
    completion: 120,
    reasoning: 80,
  },
  gemini: {
    prompt: 4700,
    cacheRead: 3000,
    cacheWrite: 0,
    cacheWriteHour: 0,
    completion: 40 + 80,
    reasoning: 80,
  },
};

/** Each kind's recorded answer, with the usage above in the vendor's own fields. */
function upstreamReply(kind: UpstreamKind, stream: boolean): FakeReply {
  const reported = REPORTED[kind];
  if (kind === 'anthropic') {
    // The vendor's `input_tokens` leaves the cache out.
    const promptUsage = {
      input_tokens: reported.prompt - reported.cacheRead - reported.cacheWrite,
      cache_creation_input_tokens: reported.cacheWrite,
      cache_read_input_tokens: reported.cacheRead,
      cache_creation: {
        ephemeral_5m_input_tokens: reported.cacheWrite - reported.cacheWriteHour,
        ephemeral_1h_input_tokens: reported.cacheWriteHour,
      },
    };
    const outputUsage = {
      output_tokens: reported.completion,
      output_tokens_details: { thinking_tokens: reported.reasoning },
    };
    if (!stream) {
      const body = fixtureJson(kind, 'anthropic-text-response.json');
      return { body: { ...body, usage: { ...promptUsage, ...outputUsage } } };
    }
    // As the issue saw it: the prompt's counts in `message_start` only, the output's at the end.
    return {
      events: rewriteEvents(fixtureEvents(kind, 'anthropic-text-stream.chunks.txt'), (data) => {
        if (data.type === 'message_start')
          return {
            ...data,
            message: { ...data.message, usage: { ...promptUsage, output_tokens: 1 } },
          };
        if (data.type === 'message_delta') return { ...data, usage: outputUsage };
        return data;
      }),
    };
  }
  if (kind === 'openai-compatible') {
    // The vendor's `prompt_tokens` holds the cache; OpenRouter counts the writes apart.
    const usage = {
      prompt_tokens: reported.prompt,
      completion_tokens: reported.completion,
      total_tokens: reported.prompt + reported.completion,
      prompt_tokens_details: {
        cached_tokens: reported.cacheRead,
        cache_write_tokens: reported.cacheWrite,
      },
      completion_tokens_details: { reasoning_tokens: reported.reasoning },
    };
    if (!stream) return { body: { ...fixtureJson(kind, 'openai-text-response.json'), usage } };
    return {
      events: rewriteEvents(fixtureEvents(kind, 'openai-text-stream.chunks.txt'), (data) =>
        data.usage ? { ...data, usage } : data,
      ),
    };
  }
  // Gemini's `promptTokenCount` holds the cache; `candidatesTokenCount` leaves thinking out.
  const usageMetadata = {
    promptTokenCount: reported.prompt,
    cachedContentTokenCount: reported.cacheRead,
    candidatesTokenCount: reported.completion - reported.reasoning,
    thoughtsTokenCount: reported.reasoning,
    totalTokenCount: reported.prompt + reported.completion,
  };
  if (!stream)
    return { body: { ...fixtureJson(kind, 'gemini-text-response.json'), usageMetadata } };
  const events = fixtureEvents(kind, 'gemini-text.chunks.txt');
  // The last chunk's counts are the answer's.
  return {
    events: rewriteEvents(events, (data, index) =>
      index === events.length - 1 ? { ...data, usageMetadata } : data,
    ),
  };
}

/** A recorded stream with each event's JSON data changed; other lines kept as they were. */
function rewriteEvents(events: string[], change: (data: Json, index: number) => Json): string[] {
  return events.map((event, index) =>
    event.replace(/^data: (\{.*\})$/m, (_line, json: string) => {
      return `data: ${JSON.stringify(change(JSON.parse(json) as Json, index))}`;
    }),
  );
}

/** The fields of `Counts` each form has a place for. */
const TOLD: Record<PublicFormName, Array<keyof Counts>> = {
  messages: ['prompt', 'cacheRead', 'cacheWrite', 'cacheWriteHour', 'completion', 'reasoning'],
  chat_completions: ['prompt', 'cacheRead', 'cacheWrite', 'completion', 'reasoning'],
  responses: ['prompt', 'cacheRead', 'cacheWrite', 'completion', 'reasoning'],
  // The vendor counts no cache writes: they are in the prompt, uncached.
  gemini: ['prompt', 'cacheRead', 'completion', 'reasoning'],
};

const pick = (counts: Counts, fields: Array<keyof Counts>) =>
  Object.fromEntries(fields.map((field) => [field, counts[field]]));

/** Messages usage → counts: its `input_tokens` leaves out what was read from or written to the cache. */
function fromMessagesUsage(usage: Json): Counts {
  const cacheRead = usage.cache_read_input_tokens ?? 0;
  const cacheWrite = usage.cache_creation_input_tokens ?? 0;
  return {
    prompt: usage.input_tokens + cacheRead + cacheWrite,
    cacheRead,
    cacheWrite,
    cacheWriteHour: usage.cache_creation?.ephemeral_1h_input_tokens ?? 0,
    completion: usage.output_tokens,
    reasoning: usage.output_tokens_details?.thinking_tokens ?? 0,
  };
}

/** What the client was told, read from the form's answer in that form's own meaning. */
function toldCounts(form: PublicFormName, text: string, stream: boolean): Counts {
  const events = stream
    ? parseSse(text).map((event) => ({ ...event, json: parseJson(event.data) }))
    : [];
  const body = stream ? null : (JSON.parse(text) as Json);
  switch (form) {
    case 'messages': {
      if (!stream) return fromMessagesUsage(body!.usage);
      // As the vendor's clients build the message: `message_start`'s usage, each count a
      // `message_delta` carries replacing it (the counts are cumulative).
      const start = events.find((event) => event.event === 'message_start')!.json.message.usage;
      const usage = { ...start };
      for (const event of events.filter((each) => each.event === 'message_delta'))
        for (const [field, value] of Object.entries(event.json.usage as Json))
          if (value !== null && value !== undefined) usage[field] = value;
      return fromMessagesUsage(usage);
    }
    case 'chat_completions': {
      const usage = stream
        ? events.map((event) => event.json).find((chunk) => chunk.usage)!.usage
        : body!.usage;
      return {
        prompt: usage.prompt_tokens,
        cacheRead: usage.prompt_tokens_details?.cached_tokens ?? 0,
        cacheWrite: usage.prompt_tokens_details?.cache_write_tokens ?? 0,
        cacheWriteHour: 0,
        completion: usage.completion_tokens,
        reasoning: usage.completion_tokens_details?.reasoning_tokens ?? 0,
      };
    }
    case 'responses': {
      const usage = stream
        ? events.find((event) => event.event === 'response.completed')!.json.response.usage
        : body!.usage;
      return {
        prompt: usage.input_tokens,
        cacheRead: usage.input_tokens_details?.cached_tokens ?? 0,
        cacheWrite: usage.input_tokens_details?.cache_write_tokens ?? 0,
        cacheWriteHour: 0,
        completion: usage.output_tokens,
        reasoning: usage.output_tokens_details?.reasoning_tokens ?? 0,
      };
    }
    case 'gemini': {
      const usage = stream
        ? events.map((event) => event.json).findLast((chunk) => chunk.usageMetadata)!.usageMetadata
        : body!.usageMetadata;
      // `candidatesTokenCount` leaves out the thoughts, which are output all the same.
      return {
        prompt: usage.promptTokenCount,
        cacheRead: usage.cachedContentTokenCount ?? 0,
        cacheWrite: 0,
        cacheWriteHour: 0,
        completion: usage.candidatesTokenCount + (usage.thoughtsTokenCount ?? 0),
        reasoning: usage.thoughtsTokenCount ?? 0,
      };
    }
  }
}

/** An event's data as JSON; `{}` for what is not (`[DONE]`). */
function parseJson(data: string): Json {
  try {
    return JSON.parse(data) as Json;
  } catch {
    return {};
  }
}

let gateway: TestGateway;
let key: string;
let upstreams: KindUpstreams;

beforeAll(async () => {
  upstreams = await startKindUpstreams();
  gateway = await startTestGateway({ providers: upstreams.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 100 })).key;
});
afterAll(async () => {
  await gateway?.stop();
  await upstreams?.close();
});

/** The generation record's counts and charge. */
async function charged(traceId: string): Promise<{ counts: Counts; costUsd: number }> {
  const response = await getWithKey(`${gateway.url}/v1/generation?id=${traceId}`, key);
  expect(response.status).toBe(200);
  const record = (await response.json()) as Json;
  return {
    counts: {
      prompt: record.prompt_tokens,
      cacheRead: record.cache_read_tokens,
      cacheWrite: record.cache_write_tokens,
      cacheWriteHour: record.cache_write_1h_tokens,
      completion: record.completion_tokens,
      reasoning: record.reasoning_tokens,
    },
    costUsd: record.cost_usd,
  };
}

/** The form's cost field, plain or streamed (the Gemini form has none). */
function toldCost(form: PublicFormName, text: string, stream: boolean): number | null {
  if (form === 'gemini') return null;
  const usages = stream
    ? parseSse(text).flatMap((event) => {
        const json = parseJson(event.data);
        return [json.usage, json.response?.usage].filter((usage) => usage);
      })
    : [(JSON.parse(text) as Json).usage];
  const usage = usages.at(-1) as Json;
  return usage.cost ?? usage.cost_usd;
}

const CASES = PUBLIC_FORMS.flatMap((form) =>
  UPSTREAM_KINDS.flatMap((kind) => [false, true].map((stream) => ({ form, kind, stream }))),
);

const BODIES: Record<PublicFormName, Record<string, unknown>> = {
  chat_completions: { messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 1_000 },
  messages: { messages: [{ role: 'user', content: 'Hello there' }], max_tokens: 1_000 },
  responses: { input: 'Hello there', max_output_tokens: 1_000 },
  gemini: {
    contents: [{ role: 'user', parts: [{ text: 'Hello there' }] }],
    generationConfig: { maxOutputTokens: 1_000 },
  },
};

describe('usage told to the client and charged', () => {
  it.each(CASES)(
    '$form form, $kind upstream, streamed: $stream',
    async ({ form, kind, stream }) => {
      const reported = REPORTED[kind];
      upstreams.fakes[kind].reply(upstreamReply(kind, stream));
      const response = await callForm(
        form,
        gateway.url,
        key,
        KIND_PROVIDERS[kind].model,
        BODIES[form],
        {
          stream,
        },
      );
      const text = await response.text();
      expect(response.status, text).toBe(200);
      expect(pick(toldCounts(form, text, stream), TOLD[form])).toEqual(pick(reported, TOLD[form]));
      const record = await charged(response.headers.get('cf-ray')!);
      expect(record.counts).toEqual(reported);
      const cost = toldCost(form, text, stream);
      if (cost !== null) expect(cost).toBe(record.costUsd);
      if (form === 'messages' && stream && kind === 'anthropic') {
        // The upstream told the prompt's counts at its start: so does the gateway, before the answer.
        const start = parseSse(text).find((event) => event.event === 'message_start')!;
        const usage = fromMessagesUsage({
          ...(JSON.parse(start.data) as Json).message.usage,
          output_tokens: reported.completion,
        });
        expect(usage).toMatchObject(
          pick(reported, ['prompt', 'cacheRead', 'cacheWrite', 'cacheWriteHour']),
        );
      }
    },
  );
});

describe('the @anthropic-ai/sdk stream helper', () => {
  it.each(UPSTREAM_KINDS)(
    'builds the final message with the cache counts a %s upstream reported',
    async (kind) => {
      const reported = REPORTED[kind];
      upstreams.fakes[kind].reply(upstreamReply(kind, true));
      const anthropic = new Anthropic({ apiKey: key, baseURL: gateway.url, maxRetries: 0 });
      const message = await anthropic.messages
        .stream({
          model: KIND_PROVIDERS[kind].model,
          max_tokens: 1_000,
          messages: [{ role: 'user', content: 'Hello there' }],
        })
        .finalMessage();
      // The client keeps the writes' lifetimes from `message_start` alone.
      expect(fromMessagesUsage(message.usage)).toEqual(reported);
    },
  );
});
