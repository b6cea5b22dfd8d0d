/** Messages request → canonical request. */
import type {
  CanonicalMessage,
  CanonicalPart,
  CanonicalReasoning,
  CanonicalRequest,
  CanonicalResponseFormat,
  CanonicalToolChoice,
} from '../../canonical/model';
import { reasoningPartFrom } from '../../canonical/reasoning-signature';
import { withOptional } from '../optional-fields';
import { invalidRequest } from '../../errors';
import { isBase64 } from '../validation';
import type {
  CountTokensRequest,
  ImageBlock,
  MessagesContentBlock,
  MessagesRequest,
  TextBlock,
  ToolResultBlock,
  ToolUseBlock,
} from './request-schema';

function imagePart(block: ImageBlock, field: string): CanonicalPart {
  if (block.source.type === 'base64') {
    if (!isBase64(block.source.data)) {
      throw invalidRequest(`Invalid field '${field}.source.data': the image data is not base64.`);
    }
    return { type: 'image', mediaType: block.source.media_type, data: block.source.data };
  }
  if (!/^https?:\/\//.test(block.source.url)) {
    throw invalidRequest(`Invalid field '${field}.source.url': an image URL must be http(s).`);
  }
  return { type: 'image', mediaType: 'image/*', url: block.source.url };
}

/** A tool result's content is a string or text (and image) blocks; the canonical result is text. */
function toolResultText(block: ToolResultBlock): string {
  if (block.content === undefined) return '';
  if (typeof block.content === 'string') return block.content;
  return block.content
    .map((part) => (part.type === 'text' ? (part as TextBlock).text : ''))
    .join('');
}

/** `tool_use.input` is an object on this form; canonical arguments are its JSON text. */
const argumentsOf = (input: unknown) => JSON.stringify(input ?? {});

export function toCanonicalRequest(body: MessagesRequest): CanonicalRequest {
  const toolNames = new Map<string, string>();
  const messages: CanonicalMessage[] = [];

  body.messages.forEach((message, index) => {
    if (message.role === 'system') {
      const text =
        typeof message.content === 'string'
          ? message.content
          : message.content.map((block) => block.text).join('\n\n');
      if (text !== '') messages.push({ role: 'system', parts: [{ type: 'text', text }] });
      return;
    }
    const blocks: MessagesContentBlock[] =
      typeof message.content === 'string'
        ? [{ type: 'text', text: message.content }]
        : message.content;
    // Tool results ride in user turns on this form; canonically they are their own `tool` turn.
    const results: CanonicalPart[] = [];
    const parts: CanonicalPart[] = [];
    blocks.forEach((block, blockIndex) => {
      const field = `messages.${index}.content.${blockIndex}`;
      switch (block.type) {
        case 'text':
          parts.push({ type: 'text', text: (block as TextBlock).text });
          break;
        case 'image':
          parts.push(imagePart(block as ImageBlock, field));
          break;
        case 'tool_use': {
          const use = block as ToolUseBlock;
          if (message.role !== 'assistant') {
            throw invalidRequest(
              `Invalid field '${field}': tool_use blocks belong in assistant messages.`,
            );
          }
          toolNames.set(use.id, use.name);
          parts.push({
            type: 'tool_call',
            id: use.id,
            name: use.name,
            arguments: argumentsOf(use.input),
          });
          break;
        }
        case 'tool_result': {
          const result = block as ToolResultBlock;
          if (message.role !== 'user') {
            throw invalidRequest(
              `Invalid field '${field}': tool_result blocks belong in user messages.`,
            );
          }
          results.push({
            type: 'tool_result',
            toolCallId: result.tool_use_id,
            name: toolNames.get(result.tool_use_id),
            content: toolResultText(result),
            ...(result.is_error === undefined ? {} : { isError: result.is_error }),
          });
          break;
        }
        case 'thinking': {
          // Handed back on a later turn; the signature goes only to the provider that made it.
          const { thinking, signature } = block as { thinking?: unknown; signature?: unknown };
          if (message.role === 'assistant')
            parts.push(
              reasoningPartFrom(
                typeof thinking === 'string' ? thinking : '',
                typeof signature === 'string' ? signature : undefined,
              ),
            );
          break;
        }
        case 'redacted_thinking': {
          const { data } = block as { data?: unknown };
          if (message.role === 'assistant' && typeof data === 'string')
            parts.push(reasoningPartFrom('', undefined, data));
          break;
        }
        default:
          // Documents and other blocks the canonical request cannot carry are listed by the form
          // (index.ts), so another kind refuses them rather than lose them.
          break;
      }
    });
    if (results.length > 0) messages.push({ role: 'tool', parts: results });
    if (parts.length > 0 || results.length === 0) messages.push({ role: message.role, parts });
  });

  return {
    model: body.model,
    system: systemText(body.system),
    messages,
    maxTokens: body.max_tokens,
    temperature: body.temperature ?? null,
    topP: body.top_p ?? null,
    stop: body.stop_sequences ?? [],
    seed: null,
    tools: (body.tools ?? []).map((tool) => ({
      name: tool.name,
      description: tool.description,
      parameters: tool.input_schema ?? { type: 'object', properties: {} },
    })),
    toolChoice: toCanonicalToolChoice(body.tool_choice),
    stream: body.stream ?? false,
    ...withOptional(toCanonicalReasoning(body), toCanonicalResponseFormat(body)),
  };
}

/**
 * `thinking` says whether and with what budget; `output_config.effort` says how hard (`max` is
 * the canonical `xhigh`). Adaptive thinking without an effort is the model's own choice.
 * @see https://docs.anthropic.com/en/docs/build-with-claude/extended-thinking
 * @see https://docs.anthropic.com/en/docs/build-with-claude/effort
 */
function toCanonicalReasoning(body: MessagesRequest): CanonicalReasoning | null {
  const effort = toCanonicalEffort(body.output_config?.effort);
  switch (body.thinking?.type) {
    case 'enabled':
      return { effort, budgetTokens: body.thinking.budget_tokens, includeText: true };
    case 'adaptive':
      return { effort, budgetTokens: null, includeText: true };
    case 'disabled':
      return { effort: 'none', budgetTokens: null, includeText: false };
    default:
      return effort === null ? null : { effort, budgetTokens: null, includeText: true };
  }
}

function toCanonicalEffort(effort: string | undefined): CanonicalReasoning['effort'] {
  switch (effort) {
    case 'low':
    case 'medium':
    case 'high':
      return effort;
    case 'max':
      return 'xhigh';
    default:
      return null;
  }
}

/** `output_config.format`, or the beta's `output_format`: JSON matching the schema. */
function toCanonicalResponseFormat(body: MessagesRequest): CanonicalResponseFormat | null {
  const format = body.output_config?.format ?? body.output_format;
  if (!format) return null;
  // The vendor's structured outputs are always strict: the answer matches the schema.
  return { type: 'json_schema', name: 'response', schema: format.schema, strict: true };
}

/** The same conversion for `count_tokens`, which has no `max_tokens`. */
export function toCanonicalCountRequest(body: CountTokensRequest): CanonicalRequest {
  return toCanonicalRequest({ ...body, max_tokens: 1 });
}

/**
 * Claude Code opens its system prompt with a line for Anthropic's billing that changes with each
 * conversation (`x-anthropic-billing-header: cc_version=2.1.332.0b8; cc_entrypoint=sdk-cli;`).
 * Another vendor would read it as the prompt's first words, so its prefix cache would never hit.
 */
const BILLING_LINE = 'x-anthropic-billing-header:';

/**
 * The system without Claude Code's billing line, and the path that reports it (`null`: it had
 * none). Only the first line of the string, or of the first block, is the billing line; a block
 * that held only it goes whole. The canonical request carries the rest: an Anthropic upstream gets
 * the body as sent, line and all, and any other gets the line dropped and reported.
 */
export function withoutBillingLine(system: MessagesRequest['system']): {
  system: MessagesRequest['system'];
  dropped: string | null;
} {
  const restOf = (text: string) => {
    const newline = text.indexOf('\n');
    return newline === -1 ? '' : text.slice(newline + 1);
  };
  if (typeof system === 'string') {
    return system.startsWith(BILLING_LINE)
      ? { system: restOf(system), dropped: 'system(x-anthropic-billing-header)' }
      : { system, dropped: null };
  }
  const [first, ...others] = system ?? [];
  if (first === undefined || !first.text.startsWith(BILLING_LINE)) return { system, dropped: null };
  const rest = restOf(first.text);
  return {
    system: rest === '' ? others : [{ ...first, text: rest }, ...others],
    dropped: 'system.0.text(x-anthropic-billing-header)',
  };
}

function systemText(whole: MessagesRequest['system']): string | null {
  const { system } = withoutBillingLine(whole);
  if (system === undefined) return null;
  const text = typeof system === 'string' ? system : system.map((block) => block.text).join('\n\n');
  return text === '' ? null : text;
}

/**
 * `any` means "use some tool": the canonical `required`.
 * @see https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use#forcing-tool-use
 */
function toCanonicalToolChoice(choice: MessagesRequest['tool_choice']): CanonicalToolChoice {
  switch (choice?.type) {
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { name: choice.name };
    case 'auto':
    default:
      return 'auto';
  }
}
