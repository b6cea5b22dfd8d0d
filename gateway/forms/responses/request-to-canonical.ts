/**
 * Responses request → canonical request. Instructions and system or developer messages become
 * the system text; messages, function calls and their outputs become the conversation; custom
 * tools and namespaced functions become plain functions (their calls are turned back on the way
 * out: `tool-names.ts`). Hosted tools and their items cannot be translated: they are listed in
 * `unmappedFields`, for a provider of this form only.
 * @see https://platform.openai.com/docs/api-reference/responses/create
 */
import type {
  CanonicalMessage,
  CanonicalPart,
  CanonicalRequest,
  CanonicalResponseFormat,
  CanonicalToolChoice,
  CanonicalTool,
} from '../../canonical/model';
import { reasoningPartFrom } from '../../canonical/reasoning-signature';
import { invalidRequest } from '../../errors';
import { imagePartFromUrl } from '../openai/request-to-canonical';
import type { ContentPart, InputItem, ResponsesRequest } from './request-schema';
import { functionNameOf } from './tool-names';
import { compactionContext, openCompaction } from '../../canonical/compaction-envelope';

/** A custom tool's free-form input travels as this one argument of a plain function. */
export const CUSTOM_INPUT_ARGUMENT = 'input';

export function toCanonicalRequest(
  body: ResponsesRequest,
): CanonicalRequest & { unmapped: string[] } {
  const unmapped: string[] = [];
  const system: string[] = body.instructions ? [body.instructions] : [];
  const messages: CanonicalMessage[] = [];
  const toolNames = new Map<string, string>();
  const items: InputItem[] =
    typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : (body.input ?? []);
  if (items.length === 0) throw invalidRequest("Invalid field 'input': give at least one item.");

  /** The assistant turn being built, opened by text, a call or reasoning. */
  const assistant = (): CanonicalPart[] => {
    const last = messages.at(-1);
    if (last?.role === 'assistant') return last.parts;
    const parts: CanonicalPart[] = [];
    messages.push({ role: 'assistant', parts });
    return parts;
  };
  const toolResult = (callId: string, output: string | ContentPart[], field: string) => {
    const parts = typeof output === 'string' ? [] : output;
    const content =
      typeof output === 'string'
        ? output
        : parts.map((part) => ('text' in part ? part.text : '')).join('');
    messages.push({
      role: 'tool',
      parts: [{ type: 'tool_result', toolCallId: callId, name: toolNames.get(callId), content }],
    });
    // Images a tool returned are shown to the model as the next user turn: a tool result is text
    // in every other form, and an image must never be dropped.
    const images = parts.flatMap((part, index) =>
      part.type === 'input_image' ? [imagePart(part, `${field}.${index}`)] : [],
    );
    if (images.length > 0) messages.push({ role: 'user', parts: images });
  };

  items.forEach((item, index) => {
    const field = `input.${index}`;
    if ('role' in item && (item.type === undefined || item.type === 'message')) {
      const content = item.content as string | ContentPart[];
      if (item.role === 'system' || item.role === 'developer') {
        system.push(joinText(content));
      } else if (item.role === 'user') {
        messages.push({ role: 'user', parts: userParts(content, `${field}.content`) });
      } else {
        const text = joinText(content);
        if (text !== '') assistant().push({ type: 'text', text });
      }
      return;
    }
    switch (item.type) {
      case 'function_call': {
        const call = item as Extract<InputItem, { type: 'function_call' }>;
        const name = call.namespace ? functionNameOf(call.namespace, call.name) : call.name;
        toolNames.set(call.call_id, name);
        assistant().push({ type: 'tool_call', id: call.call_id, name, arguments: call.arguments });
        return;
      }
      case 'custom_tool_call': {
        const call = item as Extract<InputItem, { type: 'custom_tool_call' }>;
        toolNames.set(call.call_id, call.name);
        assistant().push({
          type: 'tool_call',
          id: call.call_id,
          name: call.name,
          arguments: JSON.stringify({ [CUSTOM_INPUT_ARGUMENT]: call.input }),
        });
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const output = item as Extract<InputItem, { type: 'function_call_output' }>;
        toolResult(output.call_id, output.output, `${field}.output`);
        return;
      }
      case 'reasoning': {
        const reasoning = item as Extract<InputItem, { type: 'reasoning' }>;
        const text = [...(reasoning.summary ?? []), ...(reasoning.content ?? [])]
          .map((part) => part.text)
          .join('\n');
        // The gateway's own items carry the whole block sealed; another's encrypted_content
        // (OpenAI's, sent straight to an OpenAI upstream) reaches only a same-form upstream.
        assistant().push(
          reasoningPartFrom(text, undefined, reasoning.encrypted_content ?? undefined),
        );
        return;
      }
      case 'compaction': {
        // The gateway's own envelope is opened into the summary the model sees; another
        // vendor's stays for an upstream of this form only (a 400 toward any other).
        const content = (item as { encrypted_content?: unknown }).encrypted_content;
        const opened =
          typeof content === 'string' ? openCompaction(content) : { kind: 'broken' as const };
        if (opened.kind === 'broken')
          throw invalidRequest(
            `Invalid field '${field}.encrypted_content': not a compaction this gateway made, nor intact; send the compaction item back as it came.`,
          );
        if (opened.kind === 'foreign') unmapped.push(field);
        else
          messages.push({
            role: 'user',
            parts: [{ type: 'text', text: compactionContext(opened.summary) }],
          });
        return;
      }
      default:
        unmapped.push(field);
    }
  });

  const tools: CanonicalTool[] = [];
  (body.tools ?? []).forEach((tool, index) => {
    if (tool.type === 'function') {
      const fn = tool as Extract<typeof tool, { type: 'function' }>;
      tools.push(functionTool(fn.name, fn.description, fn.parameters));
    } else if (tool.type === 'custom') {
      const custom = tool as { name: string; description?: string | null };
      tools.push(
        functionTool(custom.name, custom.description, {
          type: 'object',
          properties: { [CUSTOM_INPUT_ARGUMENT]: { type: 'string' } },
          required: [CUSTOM_INPUT_ARGUMENT],
        }),
      );
    } else if (tool.type === 'namespace') {
      const namespace = tool as Extract<typeof tool, { type: 'namespace' }>;
      for (const fn of namespace.tools) {
        tools.push(
          functionTool(functionNameOf(namespace.name, fn.name), fn.description, fn.parameters),
        );
      }
    } else unmapped.push(`tools.${index}.${tool.type}`);
  });

  return {
    model: body.model,
    system: system.length > 0 ? system.join('\n\n') : null,
    messages,
    maxTokens: body.max_output_tokens ?? null,
    temperature: body.temperature ?? null,
    topP: body.top_p ?? null,
    stop: [],
    seed: null,
    tools,
    toolChoice: toolChoice(body.tool_choice),
    stream: body.stream ?? false,
    reasoning: body.reasoning?.effort
      ? {
          effort: body.reasoning.effort,
          budgetTokens: null,
          includeText: body.reasoning.summary != null,
        }
      : null,
    responseFormat: responseFormat(body.text?.format),
    ...(body.prompt_cache_key != null && { promptCacheKey: body.prompt_cache_key }),
    unmapped,
  };
}

function functionTool(
  name: string,
  description: string | null | undefined,
  parameters: Record<string, unknown> | null | undefined,
): CanonicalTool {
  return {
    name,
    ...(description ? { description } : {}),
    parameters: parameters ?? { type: 'object', properties: {} },
  };
}

function toolChoice(choice: ResponsesRequest['tool_choice']): CanonicalToolChoice {
  if (choice == null) return 'auto';
  if (typeof choice === 'string') return choice;
  if ((choice.type === 'function' || choice.type === 'custom') && 'name' in choice)
    return { name: String(choice.name) };
  // `allowed_tools` and hosted-tool choices: the model chooses among what it has.
  return 'auto';
}

function responseFormat(
  format: NonNullable<ResponsesRequest['text']>['format'],
): CanonicalResponseFormat | null {
  if (!format || format.type === 'text') return null;
  if (format.type === 'json_object') return { type: 'json_object' };
  const schema = format as {
    name: string;
    schema: Record<string, unknown>;
    strict?: boolean | null;
  };
  return {
    type: 'json_schema',
    name: schema.name,
    schema: schema.schema,
    strict: schema.strict ?? false,
  };
}

const joinText = (content: string | ContentPart[]) =>
  typeof content === 'string'
    ? content
    : content
        .map((part) => ('text' in part ? part.text : 'refusal' in part ? part.refusal : ''))
        .join('');

function userParts(content: string | ContentPart[], field: string): CanonicalPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((part, index): CanonicalPart => {
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: part.text };
      case 'refusal':
        return { type: 'text', text: part.refusal };
      case 'input_image':
        return imagePart(part, `${field}.${index}`);
      case 'input_file':
        return filePart(part, `${field}.${index}`);
    }
  });
}

function imagePart(part: Extract<ContentPart, { type: 'input_image' }>, field: string) {
  if (!part.image_url) {
    throw invalidRequest(
      `Invalid field '${field}': give the image as image_url (a URL or a data URL); this gateway keeps no files, so file_id cannot be read.`,
    );
  }
  return imagePartFromUrl(part.image_url, `${field}.image_url`);
}

/**
 * A file the model must read. Text files are decoded into the prompt; an image file is an image;
 * other documents (PDF) have no canonical form yet, and are refused rather than dropped.
 */
function filePart(
  part: Extract<ContentPart, { type: 'input_file' }>,
  field: string,
): CanonicalPart {
  const data = part.file_data ?? '';
  const match = /^data:([\w.+-]+\/[\w.+-]+);base64,(.*)$/s.exec(data);
  if (match) {
    const mediaType = match[1]!;
    if (mediaType.startsWith('image/')) return imagePartFromUrl(data, `${field}.file_data`);
    if (mediaType.startsWith('text/') || mediaType === 'application/json') {
      const text = Buffer.from(match[2]!, 'base64').toString('utf8');
      return { type: 'text', text: part.filename ? `${part.filename}:\n${text}` : text };
    }
  }
  throw invalidRequest(
    `Invalid field '${field}': this gateway reads input_file only as a data URL of text, JSON or an image (file_data); ${match ? `${match[1]} documents` : 'file_id and file_url'} are not supported yet.`,
  );
}
