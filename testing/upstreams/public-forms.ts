/**
 * The gateway's four public forms as a test calls them over raw HTTP: each with its own route,
 * its own key header and its own answer shape, read back into one shape so a test can compare an
 * answer across forms. Streams are read whole, and whether they ended cleanly or with the form's
 * error event is part of the answer.
 */
import type { PublicFormName } from '../../gateway/canonical/model';

export const PUBLIC_FORMS: PublicFormName[] = [
  'chat_completions',
  'messages',
  'gemini',
  'responses',
];

/** Sends `body` (in the form's own shape, without model or stream) to the gateway. */
export function callForm(
  form: PublicFormName,
  gatewayUrl: string,
  key: string,
  model: string,
  body: Record<string, unknown>,
  /** `headers`: more request headers (`x-gateway-require-parameters`, `anthropic-beta`). */
  options: { stream?: boolean; signal?: AbortSignal; headers?: Record<string, string> } = {},
): Promise<Response> {
  const stream = options.stream ?? false;
  const post = (url: string, headers: Record<string, string>, sent: unknown) =>
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers, ...options.headers },
      body: JSON.stringify(sent),
      signal: options.signal,
    });
  switch (form) {
    case 'chat_completions':
      return post(
        `${gatewayUrl}/v1/chat/completions`,
        { authorization: `Bearer ${key}` },
        {
          model,
          ...body,
          stream,
          ...(stream && !('stream_options' in body) && { stream_options: { include_usage: true } }),
        },
      );
    case 'messages':
      return post(
        `${gatewayUrl}/v1/messages`,
        { 'x-api-key': key, 'anthropic-version': '2023-06-01' },
        { model, ...body, stream },
      );
    case 'gemini':
      return post(
        `${gatewayUrl}/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`,
        { 'x-goog-api-key': key },
        body,
      );
    case 'responses':
      return post(
        `${gatewayUrl}/v1/responses`,
        { authorization: `Bearer ${key}` },
        {
          model,
          ...body,
          stream,
        },
      );
  }
}

export type FormToolCall = {
  /** The call's id; null where the form carries none (the Gemini form). */
  id: string | null;
  name: string;
  /** The arguments, parsed (each form has them as an object or as JSON text). */
  args: unknown;
};

/** An answer in any form, read into one shape. */
export type FormAnswer = {
  text: string;
  toolCalls: FormToolCall[];
  /** The form's own finish word (`stop`, `end_turn`, `STOP`…). */
  finish: string | null;
  usage: { prompt: number; completion: number } | null;
  /** The form's cost field (usage `cost` / `cost_usd`); the Gemini form has none. */
  costUsd: number | null;
  /** The error a stream ended with, in the form's shape; null for a clean end. */
  streamError: Record<string, unknown> | null;
  /** The stream ended the form's clean way: `[DONE]`, `message_stop`, a chunk with a finish reason. */
  cleanEnd: boolean;
};

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** One server-sent event: its name (if any) and its data. */
export function parseSse(text: string): Array<{ event: string | null; data: string }> {
  return text
    .replace(/\r\n/g, '\n')
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split('\n');
      const event =
        lines.find((line) => line.startsWith('event: '))?.slice('event: '.length) ?? null;
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice('data: '.length))
        .join('\n');
      return { event, data };
    });
}

/** Reads a 200 answer of the form, plain or streamed. */
export async function readFormAnswer(
  form: PublicFormName,
  response: Response,
  stream: boolean,
): Promise<FormAnswer> {
  const text = await response.text();
  if (response.status !== 200) throw new Error(`HTTP ${response.status}: ${text}`);
  if (!stream) return readPlain(form, JSON.parse(text) as Json);
  const events = parseSse(text);
  switch (form) {
    case 'chat_completions':
      return readChatStream(events);
    case 'messages':
      return readMessagesStream(events);
    case 'gemini':
      return readGeminiStream(events);
    case 'responses':
      return readResponsesStream(events);
  }
}

function readPlain(form: PublicFormName, body: Json): FormAnswer {
  const answer = emptyAnswer();
  answer.cleanEnd = true;
  switch (form) {
    case 'chat_completions': {
      const choice = body.choices[0];
      answer.text = choice.message.content ?? '';
      answer.toolCalls = (choice.message.tool_calls ?? []).map((call: Json) => ({
        id: call.id,
        name: call.function.name,
        args: JSON.parse(call.function.arguments),
      }));
      answer.finish = choice.finish_reason;
      answer.usage = { prompt: body.usage.prompt_tokens, completion: body.usage.completion_tokens };
      answer.costUsd = body.usage.cost;
      return answer;
    }
    case 'messages':
      for (const block of body.content) {
        if (block.type === 'text') answer.text += block.text;
        if (block.type === 'tool_use')
          answer.toolCalls.push({ id: block.id, name: block.name, args: block.input });
      }
      answer.finish = body.stop_reason;
      answer.usage = messagesUsage(body.usage);
      answer.costUsd = body.usage.cost_usd;
      return answer;
    case 'gemini':
      addGeminiChunk(answer, body);
      return answer;
    case 'responses':
      addResponseObject(answer, body);
      return answer;
  }
}

/** A finished Responses `response` object: its items, status and usage. */
function addResponseObject(answer: FormAnswer, body: Json): void {
  for (const item of body.output ?? []) {
    if (item.type === 'message')
      for (const part of item.content) if (part.type === 'output_text') answer.text += part.text;
    if (item.type === 'function_call')
      answer.toolCalls.push({
        id: item.call_id,
        name: item.name,
        args: JSON.parse(item.arguments),
      });
  }
  answer.finish = body.status;
  if (body.usage) {
    answer.usage = { prompt: body.usage.input_tokens, completion: body.usage.output_tokens };
    answer.costUsd = body.usage.cost;
  }
}

function readResponsesStream(events: Array<{ event: string | null; data: string }>): FormAnswer {
  const answer = emptyAnswer();
  let streamedText = '';
  for (const { event, data } of events) {
    const body = JSON.parse(data) as Json;
    // The vendor's invariant: an event's name is its data's type.
    if (body.type !== event) throw new Error(`event '${event}' carries type '${body.type}'`);
    if (event === 'response.output_text.delta') streamedText += body.delta;
    if (event === 'response.completed' || event === 'response.incomplete') {
      addResponseObject(answer, body.response);
      if (answer.text !== streamedText)
        throw new Error('the final response differs from the deltas');
      answer.cleanEnd = true;
    }
    if (event === 'response.failed') {
      answer.streamError = body.response.error;
      answer.text = streamedText;
    }
    if (event === 'error') answer.streamError = body;
  }
  return answer;
}

function readChatStream(events: Array<{ data: string }>): FormAnswer {
  const answer = emptyAnswer();
  const calls = new Map<number, { id: string; name: string; arguments: string }>();
  for (const { data } of events) {
    if (data === '[DONE]') {
      answer.cleanEnd = true;
      continue;
    }
    const chunk = JSON.parse(data) as Json;
    if (chunk.error) answer.streamError = chunk.error;
    const choice = chunk.choices?.[0];
    if (choice) {
      answer.text += choice.delta?.content ?? '';
      for (const fragment of choice.delta?.tool_calls ?? []) {
        const open = calls.get(fragment.index);
        if (open) open.arguments += fragment.function?.arguments ?? '';
        else
          calls.set(fragment.index, {
            id: fragment.id,
            name: fragment.function.name,
            arguments: fragment.function.arguments ?? '',
          });
      }
      answer.finish = choice.finish_reason ?? answer.finish;
    }
    if (chunk.usage) {
      answer.usage = {
        prompt: chunk.usage.prompt_tokens,
        completion: chunk.usage.completion_tokens,
      };
      answer.costUsd = chunk.usage.cost;
    }
  }
  answer.toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({ id: call.id, name: call.name, args: JSON.parse(call.arguments) }));
  return answer;
}

function readMessagesStream(events: Array<{ event: string | null; data: string }>): FormAnswer {
  const answer = emptyAnswer();
  const calls = new Map<number, { id: string; name: string; json: string }>();
  for (const { event, data } of events) {
    const body = JSON.parse(data) as Json;
    // The vendor's invariant: an event's name is its data's type.
    if (body.type !== event) throw new Error(`event '${event}' carries type '${body.type}'`);
    switch (event) {
      case 'content_block_start':
        if (body.content_block.type === 'text') answer.text += body.content_block.text;
        if (body.content_block.type === 'tool_use')
          calls.set(body.index, {
            id: body.content_block.id,
            name: body.content_block.name,
            json: '',
          });
        break;
      case 'content_block_delta':
        if (body.delta.type === 'text_delta') answer.text += body.delta.text;
        if (body.delta.type === 'input_json_delta')
          calls.get(body.index)!.json += body.delta.partial_json;
        break;
      case 'message_delta':
        answer.finish = body.delta.stop_reason;
        answer.usage = messagesUsage(body.usage);
        answer.costUsd = body.usage.cost_usd;
        break;
      case 'message_stop':
        answer.cleanEnd = true;
        break;
      case 'error':
        answer.streamError = body;
        break;
      default:
        break;
    }
  }
  answer.toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({ id: call.id, name: call.name, args: JSON.parse(call.json || '{}') }));
  return answer;
}

function readGeminiStream(events: Array<{ data: string }>): FormAnswer {
  const answer = emptyAnswer();
  for (const { data } of events) {
    const chunk = JSON.parse(data) as Json;
    if (chunk.error) {
      answer.streamError = chunk;
      answer.cleanEnd = false;
      continue;
    }
    addGeminiChunk(answer, chunk);
  }
  return answer;
}

function addGeminiChunk(answer: FormAnswer, chunk: Json): void {
  const candidate = chunk.candidates?.[0];
  for (const part of candidate?.content?.parts ?? []) {
    // A thought is reasoning, not the answer's text.
    if (typeof part.text === 'string' && part.thought !== true) answer.text += part.text;
    if (part.functionCall)
      answer.toolCalls.push({
        id: part.functionCall.id ?? null,
        name: part.functionCall.name,
        args: part.functionCall.args ?? {},
      });
  }
  if (candidate?.finishReason) {
    answer.finish = candidate.finishReason;
    answer.cleanEnd = true;
  }
  if (chunk.usageMetadata) {
    answer.usage = {
      prompt: chunk.usageMetadata.promptTokenCount,
      // The form counts thinking apart from the candidates; both are the completion.
      completion:
        chunk.usageMetadata.candidatesTokenCount + (chunk.usageMetadata.thoughtsTokenCount ?? 0),
    };
  }
}

const emptyAnswer = (): FormAnswer => ({
  text: '',
  toolCalls: [],
  finish: null,
  usage: null,
  costUsd: null,
  streamError: null,
  cleanEnd: false,
});

/** The message of an error body in the form's shape. */
export function formErrorMessage(form: PublicFormName, body: Json): string {
  switch (form) {
    case 'chat_completions':
      return body.error;
    case 'messages':
      return body.error.message;
    case 'gemini':
      return body.error.message;
    case 'responses':
      return body.error;
  }
}

/** The form's stream error: the message it carries and the status it names. */
export function streamErrorOf(
  form: PublicFormName,
  error: Record<string, unknown>,
): { message: string; status: number | string } {
  const body = error as Json;
  switch (form) {
    case 'chat_completions':
      return { message: body.message, status: body.code };
    case 'messages':
      return { message: body.error.message, status: body.error.type };
    case 'gemini':
      return { message: body.error.message, status: body.error.code };
    case 'responses':
      return { message: body.message, status: body.code };
  }
}

/** How each form says a stream broke after it began. */
export function expectBrokenStream(
  form: PublicFormName,
  answer: Awaited<ReturnType<typeof readFormAnswer>>,
  status: number,
  message: string,
) {
  expect(answer.cleanEnd).toBe(false);
  expect(answer.streamError).not.toBeNull();
  const error = streamErrorOf(form, answer.streamError!);
  expect(error.message).toContain(message);
  switch (form) {
    case 'chat_completions':
      // A last chunk whose finish reason says `error`, carrying the error; no [DONE] after it.
      expect(answer.finish).toBe('error');
      expect(error.status).toBe(status);
      break;
    case 'messages':
      // An `error` event in the vendor's shape, and no message_delta / message_stop.
      expect(answer.finish).toBeNull();
      expect(error.status).toBe(status === 503 ? 'overloaded_error' : 'api_error');
      break;
    case 'gemini':
      expect(answer.finish).toBeNull();
      expect(error.status).toBe(status);
      break;
    case 'responses':
      // `response.failed`, carrying the error; no response.completed.
      expect(answer.finish).toBeNull();
      expect(error.status).toBe(responsesErrorCode(status));
      break;
  }
}

/**
 * The `code` of a failed response's error, for an HTTP status
 * (`gateway/forms/responses/canonical-to-stream.ts`).
 */
export const responsesErrorCode = (status: number) =>
  status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request';

/**
 * A Messages usage as prompt and completion counts: the vendor's `input_tokens` leaves out what
 * was read from or written to the prompt cache, so the prompt is all three.
 */
export function messagesUsage(usage: {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
}) {
  return {
    prompt:
      usage.input_tokens +
      (usage.cache_creation_input_tokens ?? 0) +
      (usage.cache_read_input_tokens ?? 0),
    completion: usage.output_tokens,
  };
}

/** A short question in the form's own shape, with an output bound of 100 tokens. */
export function helloIn(form: PublicFormName): Record<string, unknown> {
  switch (form) {
    case 'chat_completions':
    case 'messages':
      return { max_tokens: 100, messages: [{ role: 'user', content: 'Hello' }] };
    case 'gemini':
      return {
        contents: [{ role: 'user', parts: [{ text: 'Hello' }] }],
        generationConfig: { maxOutputTokens: 100 },
      };
    case 'responses':
      return { input: 'Hello', max_output_tokens: 100 };
  }
}
