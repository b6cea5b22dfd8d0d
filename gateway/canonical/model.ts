/**
 * The canonical request and response: the bottom layer. Every public form converts into and out
 * of these types, and providers see nothing else. It imports nothing from the rest of the gateway.
 */

/**
 * A prompt-cache breakpoint: the upstream caches the prompt up to and including what carries it,
 * for `ttl` (absent: the vendor's default, five minutes). Only Anthropic upstreams take one; the
 * others cache by prefix on their own, and the client's field is reported as dropped.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching
 */
export type CanonicalCacheControl = { ttl?: '5m' | '1h' };

export type CanonicalPart =
  | { type: 'text'; text: string; cacheControl?: CanonicalCacheControl }
  /** An image, inline (base64 `data`) or by `url`. */
  | { type: 'image'; mediaType: string; data?: string; url?: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | {
      type: 'tool_result';
      toolCallId: string;
      name?: string;
      content: string;
      isError?: boolean;
      cacheControl?: CanonicalCacheControl;
    }
  /**
   * Reasoning the model produced on an earlier turn, handed back. `signature` (Anthropic, Gemini)
   * or `encrypted` (OpenAI's `encrypted_content`) go back only to the provider that made them
   * (`providerId`); another provider gets neither.
   */
  | {
      type: 'reasoning';
      text: string;
      signature?: string;
      encrypted?: string;
      providerId?: string;
      /** The key it was made for, when the client's form carried it (`sealReasoning`). */
      keyId?: string;
    };

/**
 * `system`: an instruction inside the conversation (Claude Code sends them mid-`messages`). A
 * provider that takes one there keeps it in place; the others fold its text into `system`.
 */
export type CanonicalRole = 'system' | 'user' | 'assistant' | 'tool';

export type CanonicalMessage = { role: CanonicalRole; parts: CanonicalPart[] };

export type CanonicalTool = {
  name: string;
  description?: string;
  /** JSON schema of the arguments, kept as the caller sent it. */
  parameters: Record<string, unknown>;
};

export type CanonicalToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** The public forms a request can arrive in. */
export type PublicFormName = 'chat_completions' | 'messages' | 'gemini' | 'responses';

/**
 * How hard the model should think: an effort, a token budget, or both (each form says one; each
 * provider kind takes what it can). Null on the request: the provider's default.
 */
export type CanonicalReasoning = {
  effort: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | null;
  budgetTokens: number | null;
  /** Whether the client wants the reasoning text (or a summary) in the answer. */
  includeText: boolean;
};

/** The shape the answer must take: free text, any JSON object, or JSON matching a schema. */
export type CanonicalResponseFormat =
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict: boolean };

/**
 * The form a generation record names: a chat form, or `embeddings` (OpenAI's embeddings route;
 * the Gemini form's embeddings are recorded as `gemini`, as its other methods are).
 */
export type RecordedFormName = PublicFormName | 'embeddings';

/**
 * The request as it arrived, for what the canonical fields cannot carry. An upstream of the same
 * form gets `body` with only the model (and the gateway's own bounds) replaced, so fields the
 * gateway does not understand reach it unchanged. An upstream of another form cannot honour
 * `unmappedFields`: it drops them and says so (`TranslationReport`), or refuses them in strict
 * mode and where they are what the model sees (`canonical/translation.ts`).
 */
export type InboundRequest = {
  form: PublicFormName;
  body: Record<string, unknown>;
  /** Fields of `body` the canonical request does not carry, as dotted paths. */
  unmappedFields: string[];
  /**
   * The client's `cache_control` fields the canonical request carries (`cacheControl` on parts,
   * `systemBlocks`, the request's own), as dotted paths: an upstream that takes breakpoints gets
   * them, another drops them and says so.
   */
  cacheFields?: string[];
  /** Request headers a same-form upstream gets as sent (`anthropic-beta`), lower-case names. */
  headers?: Record<string, string>;
  /**
   * A preset changed the request (its system prompt or defaults): no upstream gets the body as
   * sent, every converter builds from the canonical request.
   */
  rebuilt?: true;
};

/**
 * What the gateway dropped or changed to reach the provider that answered, as dotted paths of
 * the client's request (`generationConfig.topK`) and `field=from->to` (`max_tokens=32000->8192`).
 */
export type TranslationReport = { dropped: string[]; adjusted: string[] };

export type ProviderSort = 'price' | 'latency' | 'throughput';

/** Provider preferences as the gateway honours them (OpenRouter's `provider` object). */
export type ProviderPreferences = {
  order?: string[];
  only?: string[];
  ignore?: string[];
  allowFallbacks?: boolean;
  sort?: ProviderSort;
  /** USD per million tokens. */
  maxPrice?: { prompt?: number; completion?: number };
};

export type RequestRouting = {
  provider: ProviderPreferences;
  /** Fallback models (or aliases), tried in order after the request's model. */
  models: string[];
  /** Options asked for that the gateway does not honour, as dotted paths (`provider.zdr`). */
  dropped: string[];
  /** The id the client named when it was a preset (`@preset/reviewer`), else absent. */
  preset?: string;
};

export type CanonicalRequest = {
  /** Catalog id, `<author>/<model>[:variant]`. */
  model: string;
  system: string | null;
  /**
   * The system text in the blocks the client marked, when one carries a cache breakpoint (their
   * texts joined by a blank line are `system`); absent otherwise. A provider that takes
   * breakpoints sends these blocks; the others send `system`.
   */
  systemBlocks?: Array<{ text: string; cacheControl?: CanonicalCacheControl }>;
  messages: CanonicalMessage[];
  maxTokens: number | null;
  temperature: number | null;
  topP: number | null;
  stop: string[];
  seed: number | null;
  tools: CanonicalTool[];
  toolChoice: CanonicalToolChoice;
  stream: boolean;
  /** Absent or null: the provider's default. */
  reasoning?: CanonicalReasoning | null;
  /** Absent or null: free text. */
  responseFormat?: CanonicalResponseFormat | null;
  /** A breakpoint for the whole request: the upstream places it on the last block it can cache. */
  cacheControl?: CanonicalCacheControl;
  /**
   * The client's key for the upstream's prompt cache (OpenAI's `prompt_cache_key`), which routes
   * requests that share a long prefix to the same cache.
   */
  promptCacheKey?: string;
  /** Absent for requests the gateway builds itself (tests, probes). */
  inbound?: InboundRequest;
  /**
   * Strict mode (`x-gateway-require-parameters: true`, or `provider.require_parameters`): what a
   * provider cannot honour is refused with a 400 naming it, instead of dropped.
   */
  requireParameters?: boolean;
  /** What the client asked of routing: provider preferences and fallback models (docs/routing.md). */
  routing?: RequestRouting;
  /**
   * Filled by the provider's request converter for one attempt (the pipeline gives each attempt
   * its own): what it dropped or adjusted. Absent: nobody is listening (tests, probes).
   */
  translation?: TranslationReport;
};

export type FinishReason =
  'stop' | 'length' | 'tool_calls' | 'stop_sequence' | 'content_filter' | 'error';

export type Usage = {
  promptTokens: number;
  completionTokens: number;
  /** Of the prompt, the tokens the upstream read from and wrote to its prompt cache. */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Of `cacheWriteTokens`, those written to a one-hour cache entry (Anthropic's `1h` TTL). */
  cacheWriteHourTokens?: number;
  /** Of the completion, the tokens spent reasoning (charged as completion tokens). */
  reasoningTokens?: number;
};

/**
 * What a provider says it served. A count it left out, or sent as anything but a whole number
 * from 0 up (negative, fractional, absurd: `providers/upstream/reported-count.ts`), is null: the
 * pipeline counts that part itself rather than charge it.
 */
export type ReportedUsage = {
  promptTokens: number | null;
  completionTokens: number | null;
  /** Of the prompt, the tokens read from and written to the upstream's prompt cache (0: none). */
  cacheReadTokens?: number;
  cacheWriteTokens?: number;
  /** Of `cacheWriteTokens`, those written to a one-hour cache entry (Anthropic's `1h` TTL). */
  cacheWriteHourTokens?: number;
  /** Of the completion, the tokens spent reasoning. */
  reasoningTokens?: number;
};

/** What a provider streams; a non-streamed answer is the same events gathered. */
export type CanonicalEvent =
  | {
      type: 'text-delta';
      text: string;
      /**
       * `refusal`: the text is the model's refusal to answer (OpenAI's `refusal`), which the
       * chat-completion form shows apart from the answer; forms without that field show it as text.
       * Absent for the answer itself.
       */
      channel?: 'refusal';
      /**
       * The log probabilities of these tokens as an OpenAI-compatible upstream sent them (entries
       * of its `logprobs.content`, or `logprobs.refusal` for a refusal), when the client asked for
       * them; kept raw. Only the chat-completion form shows them.
       */
      logprobs?: unknown[];
    }
  | { type: 'tool-call'; id: string; name: string; arguments: string }
  /**
   * Reasoning text (or its summary) as it streams. `signature` or `encrypted` closes a block of
   * reasoning: what the provider needs to see it again on a later turn.
   */
  | { type: 'reasoning-delta'; text: string; signature?: string; encrypted?: string }
  /**
   * The usage the provider reported before its finish (Anthropic's `message_start`: the prompt,
   * cache reads and writes), for the forms that tell it at the start. At most once, just before
   * the answer's first event, so it never starts an answer on its own. Never charged: the finish's
   * usage is.
   */
  | { type: 'usage'; usage: ReportedUsage }
  | {
      type: 'finish';
      finishReason: FinishReason;
      /** The upstream's own word for why it stopped (`end_turn`, `MAX_TOKENS`…), when it said one. */
      rawFinishReason?: string | null;
      stopSequence: string | null;
      /** What the provider reports it served; null when it reported nothing. */
      usage: ReportedUsage | null;
    };

/** The finish event as the pipeline passes it on: with the usage and cost charged. */
export type PricedFinish = Omit<Extract<CanonicalEvent, { type: 'finish' }>, 'usage'> & {
  usage: Usage;
  costUsd: number;
};

export type PipelineEvent = Exclude<CanonicalEvent, { type: 'finish' }> | PricedFinish;

/** A whole answer, gathered from the events. */
export type CanonicalResponse = {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  /** The reasoning blocks, in order, each with its signature or encrypted form when it had one. */
  reasoning?: Array<{ text: string; signature?: string; encrypted?: string }>;
  finish: PricedFinish;
  /** The model's refusal, when it sent one (`channel: 'refusal'` deltas), apart from `text`. */
  refusal?: string;
  /** Log probabilities, when the upstream sent any: of the text, and of the refusal. */
  logprobs?: { content: unknown[]; refusal: unknown[] };
};

export async function gatherResponse(
  events: AsyncIterable<PipelineEvent>,
): Promise<CanonicalResponse> {
  let text = '';
  let refusal: string | undefined;
  let logprobs: CanonicalResponse['logprobs'];
  const toolCalls: CanonicalResponse['toolCalls'] = [];
  const reasoning: NonNullable<CanonicalResponse['reasoning']> = [];
  // A block stays open until its signature (or encrypted form) arrives.
  let reasoningOpen = false;
  let finish: PricedFinish | undefined;
  for await (const event of events) {
    if (event.type === 'text-delta') {
      if (event.channel === 'refusal') refusal = (refusal ?? '') + event.text;
      else text += event.text;
      if (event.logprobs) {
        logprobs ??= { content: [], refusal: [] };
        const into = event.channel === 'refusal' ? logprobs.refusal : logprobs.content;
        for (const entry of event.logprobs) into.push(entry);
      }
    } else if (event.type === 'reasoning-delta') {
      if (!reasoningOpen) reasoning.push({ text: '' });
      const block = reasoning[reasoning.length - 1]!;
      block.text += event.text;
      if (event.signature !== undefined) block.signature = event.signature;
      if (event.encrypted !== undefined) block.encrypted = event.encrypted;
      reasoningOpen = event.signature === undefined && event.encrypted === undefined;
    } else if (event.type === 'usage') {
      continue;
    } else if (event.type === 'tool-call') {
      reasoningOpen = false;
      toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments });
    } else finish = event;
  }
  if (!finish) throw new Error('The answer ended without a finish event');
  return {
    text,
    toolCalls,
    finish,
    ...(reasoning.length > 0 && { reasoning }),
    ...(refusal !== undefined && { refusal }),
    ...(logprobs && { logprobs }),
  };
}

/** One input to embed: a text, or token ids as the client's tokenizer made them. */
export type EmbeddingInput = string | number[];

/** An embeddings request, whatever its form: several inputs, one vector each, in order. */
export type CanonicalEmbeddingRequest = {
  /** Catalog id, `<author>/<model>[:variant]`. */
  model: string;
  inputs: EmbeddingInput[];
  /** Vector length asked for (models that can shorten their vectors); null: the model's own. */
  dimensions: number | null;
  /** The caller's end-user id, passed on where the upstream takes it. */
  user?: string;
  /** The body as it arrived, for the form's answer (OpenAI's `encoding_format`, Gemini's `content`). */
  inbound?: { form: RecordedFormName; body: Record<string, unknown> };
};

/** What a provider returns for an embeddings request. */
export type EmbeddingResult = {
  /** One vector per input, in the inputs' order. */
  vectors: number[][];
  /** The prompt tokens the upstream counted; null when it counts none (Gemini's embed API). */
  promptTokens: number | null;
};
