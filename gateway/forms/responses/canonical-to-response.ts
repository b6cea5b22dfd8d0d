/**
 * Canonical answer → the Responses form's `response` object and its output items. The stream
 * writer builds the same items as events arrive, with the same functions, so a streamed answer's
 * `response.completed` equals the plain answer.
 * @see https://platform.openai.com/docs/api-reference/responses/object
 */
import type { CanonicalResponse, FinishReason, PricedFinish } from '../../canonical/model';
import { sealReasoning, type SealedBlock } from '../../canonical/reasoning-signature';
import type { AnswerMeta } from '../public-form';
import { CUSTOM_INPUT_ARGUMENT } from './request-to-canonical';
import type { ResponsesRequest } from './request-schema';
import type { ToolKinds } from './tool-names';

export type OutputItem = Record<string, unknown> & { id: string; type: string };

/** Ids carry the trace id's hex, so a response and its items can be matched to the record. */
export const responseId = (traceId: string) => `resp_${traceId.slice(0, 16)}`;
export const itemId = (prefix: 'msg' | 'fc' | 'ctc' | 'rs', traceId: string, index: number) =>
  `${prefix}_${traceId.slice(0, 16)}${String(index).padStart(3, '0')}`;

export function messageItem(id: string, text: string, status: 'in_progress' | 'completed') {
  return {
    id,
    type: 'message',
    status,
    role: 'assistant',
    content: status === 'in_progress' ? [] : [outputText(text)],
  };
}

export const outputText = (text: string) => ({ type: 'output_text', text, annotations: [] });

/** A call as the caller declared its tool: a function (maybe namespaced) or a custom tool. */
export function callItem(
  id: string,
  call: { id: string; name: string; arguments: string },
  kinds: ToolKinds,
  status: 'in_progress' | 'completed',
): OutputItem {
  if (kinds.custom.has(call.name)) {
    return {
      id,
      type: 'custom_tool_call',
      status,
      call_id: call.id,
      name: call.name,
      input: status === 'completed' ? customInput(call.arguments) : '',
    };
  }
  const namespaced = kinds.namespaced.get(call.name);
  return {
    id,
    type: 'function_call',
    status,
    call_id: call.id,
    name: namespaced?.name ?? call.name,
    ...(namespaced && { namespace: namespaced.namespace }),
    arguments: status === 'completed' ? call.arguments : '',
  };
}

/** The free-form input of a custom tool's call, out of its one-argument function form. */
function customInput(argumentsText: string): string {
  try {
    const parsed = JSON.parse(argumentsText) as Record<string, unknown>;
    const input = parsed[CUSTOM_INPUT_ARGUMENT];
    if (typeof input === 'string') return input;
  } catch {
    // A model that ignored the one-argument form: its raw text is the input.
  }
  return argumentsText;
}

/**
 * A reasoning block as the form's item. Its `encrypted_content` is the whole block sealed
 * (`sealReasoning`): Codex sends back only that, and the maker needs the text with its signature.
 */
export function reasoningItem(
  id: string,
  block: SealedBlock,
  includeEncrypted: boolean,
  keyId: string | undefined,
): OutputItem {
  const encrypted =
    block.encrypted === undefined && block.signature === undefined
      ? undefined
      : sealReasoning(block, keyId);
  return {
    id,
    type: 'reasoning',
    summary: block.text === '' ? [] : [{ type: 'summary_text', text: block.text }],
    ...(includeEncrypted && encrypted !== undefined && { encrypted_content: encrypted }),
  };
}

/**
 * The vendor's `input_tokens` counts the whole prompt, cache reads and writes in it; of it,
 * `cached_tokens` were read from the cache, and `cache_write_tokens` (a field of servers that
 * charge for writes, as Azure's) written to it. `output_tokens` holds the reasoning tokens.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */
export function responsesUsage(finish: PricedFinish) {
  const {
    promptTokens,
    completionTokens,
    cacheReadTokens = 0,
    cacheWriteTokens = 0,
    reasoningTokens = 0,
  } = finish.usage;
  return {
    input_tokens: promptTokens,
    input_tokens_details: {
      cached_tokens: cacheReadTokens,
      ...(cacheWriteTokens > 0 && { cache_write_tokens: cacheWriteTokens }),
    },
    output_tokens: completionTokens,
    output_tokens_details: { reasoning_tokens: reasoningTokens },
    total_tokens: promptTokens + completionTokens,
    cost: finish.costUsd,
  };
}

/** `completed`, or `incomplete` with the vendor's reason. */
export function statusOf(reason: FinishReason): {
  status: 'completed' | 'incomplete';
  incomplete_details: { reason: string } | null;
} {
  if (reason === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

/** The response object without its outcome: what `response.created` announces. */
export function responseShell(meta: AnswerMeta) {
  const body = (meta.request.inbound?.body ?? {}) as ResponsesRequest;
  return {
    id: responseId(meta.traceId),
    object: 'response',
    created_at: meta.created,
    status: 'in_progress' as string,
    background: false,
    error: null as null | { code: string; message: string },
    incomplete_details: null as null | { reason: string },
    instructions: body.instructions ?? null,
    max_output_tokens: meta.request.maxTokens,
    model: meta.model,
    output: [] as OutputItem[],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: {
      effort: body.reasoning?.effort ?? null,
      summary: body.reasoning?.summary ?? null,
    },
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: body.text?.format ?? { type: 'text' } },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_p: body.top_p ?? 1,
    truncation: 'disabled',
    usage: null as null | ReturnType<typeof responsesUsage>,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

export type ResponseObject = ReturnType<typeof responseShell>;

export function includesEncryptedReasoning(meta: AnswerMeta): boolean {
  const include = (meta.request.inbound?.body as ResponsesRequest | undefined)?.include;
  return include?.includes('reasoning.encrypted_content') ?? false;
}

export function toResponseObject(
  answer: CanonicalResponse,
  meta: AnswerMeta,
  kinds: ToolKinds,
): ResponseObject {
  const output: OutputItem[] = [];
  const includeEncrypted = includesEncryptedReasoning(meta);
  for (const block of answer.reasoning ?? [])
    output.push(
      reasoningItem(itemId('rs', meta.traceId, output.length), block, includeEncrypted, meta.keyId),
    );
  if (answer.text !== '' || answer.refusal !== undefined || answer.toolCalls.length === 0) {
    const item = messageItem(itemId('msg', meta.traceId, output.length), answer.text, 'completed');
    if (answer.refusal !== undefined)
      item.content.push({ type: 'refusal', refusal: answer.refusal } as never);
    output.push(item);
  }
  for (const call of answer.toolCalls) {
    const prefix = kinds.custom.has(call.name) ? 'ctc' : 'fc';
    output.push(callItem(itemId(prefix, meta.traceId, output.length), call, kinds, 'completed'));
  }
  return {
    ...responseShell(meta),
    ...statusOf(answer.finish.finishReason),
    output,
    usage: responsesUsage(answer.finish),
  };
}
