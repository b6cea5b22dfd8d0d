/**
 * From the session to the exact `POST /api/chat` body: the system prompt and messages in the
 * chat-completion form, the supported parameters the person set, and the tools. The result is
 * checked with the contract's `chatRequestSchema`, so what is sent is what the BFF accepts.
 * With the Responses API chosen, the body says so and the BFF sends the same conversation to
 * `POST /v1/responses`; what that form has no field for is left out with a note.
 */
import { z } from 'zod';
import { byteSize } from '../../../contract/byte-size';
import { toResponsesRequest } from '../../../contract/responses-form';
import {
  chatRequestSchema,
  workbenchBodyLimitBytes,
  type CatalogModel,
  type ChatMessage,
  type ChatRequest,
  type InferenceApi,
} from '../../../contract/workbench-api';
import {
  parameterProblem,
  parameterSupport,
  responseFormatValue,
  supportsImages,
  supportsTools,
  toolChoiceValue,
  tunableParameters,
} from './parameters';
import type { ConversationMessage, Parameters } from './playground-types';

/** A message in the chat-completion form: images become `image_url` parts with data URLs. */
export function toWireMessage(message: ConversationMessage): ChatMessage {
  const wire: ChatMessage = { role: message.role, content: message.text };
  if (message.images.length > 0) {
    wire.content = [
      ...(message.text !== '' ? [{ type: 'text' as const, text: message.text }] : []),
      ...message.images.map((url) => ({ type: 'image_url' as const, image_url: { url } })),
    ];
  }
  if (message.role === 'assistant' && message.toolCalls && message.toolCalls.length > 0) {
    wire.tool_calls = message.toolCalls;
    // The chat-completion form writes an assistant turn that only calls tools with null content.
    if (message.text === '') wire.content = null;
  }
  if (message.role === 'tool' && message.toolCallId) wire.tool_call_id = message.toolCallId;
  return wire;
}

/**
 * The user turns whose reply failed (1-based positions): they wait for Retry or Discard and are
 * never sent again with a later message, where they would repeat a request that already failed.
 */
export function failedUserTurns(messages: ConversationMessage[]): number[] {
  return messages.flatMap((message, index) =>
    message.role === 'user' && messages[index + 1]?.run?.status === 'error' ? [index + 1] : [],
  );
}

export function toWireMessages(
  systemPrompt: string,
  messages: ConversationMessage[],
): ChatMessage[] {
  const wire: ChatMessage[] = [];
  if (systemPrompt.trim() !== '') wire.push({ role: 'system', content: systemPrompt });
  const failedTurns = new Set(failedUserTurns(messages));
  // A failed turn is the workbench's record of an error, not something the model said:
  // sending it would put an empty assistant turn into the model's context.
  messages.forEach((message, index) => {
    if (message.run?.status !== 'error' && !failedTurns.has(index + 1))
      wire.push(toWireMessage(message));
  });
  return wire;
}

const toolDefinitionSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'a tool name is 1–64 letters, digits, _ or -'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
  }),
});
export type ToolDefinition = z.infer<typeof toolDefinitionSchema>;

/** The tools JSON typed by the person: an empty text means no tools. */
export function parseToolsText(
  text: string,
): { tools: ToolDefinition[]; problem: null } | { tools: null; problem: string } {
  if (text.trim() === '') return { tools: [], problem: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { tools: null, problem: `Tools are not valid JSON: ${(error as Error).message}` };
  }
  const parsed = z.array(toolDefinitionSchema).safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue && issue.path.length > 0 ? ` at ${issue.path.join('.')}` : '';
    return {
      tools: null,
      problem: `Tools must be an array of {"type": "function", "function": {name, description, parameters}}${where}: ${issue?.message ?? 'invalid'}.`,
    };
  }
  return { tools: parsed.data, problem: null };
}

/** A starting point for the tools editor. */
export const exampleToolsText = JSON.stringify(
  [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather for a city.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string', description: 'City name' } },
          required: ['city'],
        },
      },
    },
  ],
  null,
  2,
);

export interface BuildRequestInput {
  profile: string;
  model: string;
  catalogModel: CatalogModel | undefined;
  systemPrompt: string;
  messages: ConversationMessage[];
  parameters: Parameters;
  toolsText: string;
  /** The gateway route to send to; chat completions when absent. */
  api?: InferenceApi;
}

export type BuildRequestResult =
  { ok: true; body: ChatRequest; notes: string[] } | { ok: false; problems: string[] };

/**
 * The `POST /api/chat` body for one model. Unsupported parameters are left out (with a note);
 * invalid ones stop the send with a problem the person can fix.
 */
export function buildChatRequest(input: BuildRequestInput): BuildRequestResult {
  const problems: string[] = [];
  const notes: string[] = [];
  const request: ChatRequest['request'] = {
    model: input.model,
    messages: toWireMessages(input.systemPrompt, input.messages),
  };

  for (const parameter of tunableParameters) {
    const value = input.parameters[parameter];
    const isSet = Array.isArray(value) ? value.length > 0 : value !== null;
    if (!isSet) continue;
    const support = parameterSupport(parameter, input.catalogModel);
    if (!support.supported) {
      notes.push(`${parameter} is not sent: ${support.reason ?? 'not supported'}`);
      continue;
    }
    const problem = parameterProblem(parameter, input.parameters, input.catalogModel);
    if (problem) {
      problems.push(problem);
      continue;
    }
    if (parameter === 'stop') request.stop = input.parameters.stop;
    else if (parameter === 'max_tokens' && input.parameters.max_tokens !== null)
      request.max_tokens = input.parameters.max_tokens;
    else if (parameter === 'temperature' && input.parameters.temperature !== null)
      request.temperature = input.parameters.temperature;
    else if (parameter === 'top_p' && input.parameters.top_p !== null)
      request.top_p = input.parameters.top_p;
    else if (parameter === 'seed' && input.parameters.seed !== null)
      request.seed = input.parameters.seed;
  }
  request.stream = input.parameters.stream;

  // A model the catalog does not list may well take tools: they are sent and the gateway decides,
  // as for the other parameters (see `parameterSupport`).
  const toolsAllowed = input.catalogModel === undefined || supportsTools(input.catalogModel);
  const tools = parseToolsText(input.toolsText);
  if (tools.problem !== null) {
    if (toolsAllowed) problems.push(tools.problem);
  } else if (tools.tools.length > 0) {
    if (toolsAllowed) request.tools = tools.tools;
    else
      notes.push(
        `Tools are not sent: ${input.model} does not list “tools” in its supported parameters.`,
      );
  }

  const choice = input.parameters.tool_choice;
  if (choice !== null) {
    const support = parameterSupport('tool_choice', input.catalogModel);
    // Gateways refuse a tool_choice without tools; with none sent there is nothing to choose.
    if (request.tools === undefined)
      notes.push('tool_choice is not sent: the request sends no tools.');
    else if (!support.supported) notes.push(`tool_choice is not sent: ${support.reason}`);
    else {
      const names = request.tools.flatMap((tool) => {
        const name = (tool as Partial<ToolDefinition>).function?.name;
        return typeof name === 'string' ? [name] : [];
      });
      const value = toolChoiceValue(choice, names);
      if (value.problem !== null) problems.push(value.problem);
      else request.tool_choice = value.value;
    }
  }

  const format = input.parameters.response_format;
  if (format !== null) {
    const support = parameterSupport('response_format', input.catalogModel);
    if (!support.supported) notes.push(`response_format is not sent: ${support.reason}`);
    else {
      const value = responseFormatValue(format, input.parameters.response_schema);
      if (value.problem !== null) problems.push(value.problem);
      else request.response_format = value.value;
    }
  }

  const effort = input.parameters.reasoning_effort;
  if (effort !== null) {
    const support = parameterSupport('reasoning', input.catalogModel);
    if (!support.supported) notes.push(`reasoning_effort is not sent: ${support.reason}`);
    else request.reasoning_effort = effort;
  }

  const hasImages = input.messages.some((message) => message.images.length > 0);
  if (hasImages && input.catalogModel && !supportsImages(input.catalogModel)) {
    problems.push(
      `${input.model} does not take image input; remove the images or choose a model that does.`,
    );
  }
  for (const message of input.messages) {
    if (message.role === 'tool' && !message.toolCallId) {
      problems.push(
        'A tool message needs the tool call it answers; change its role, or answer a call the model made.',
      );
      break;
    }
  }
  if (request.messages.length === 0) problems.push('Write a message first.');
  for (const turn of failedUserTurns(input.messages))
    notes.push(`Turn ${turn} is not sent: its reply failed. Retry or Discard it.`);

  if (problems.length > 0) return { ok: false, problems };
  if (input.api === 'responses') {
    for (const field of toResponsesRequest(request).dropped) {
      if (field === 'stop') delete request.stop;
      if (field === 'seed') delete request.seed;
      notes.push(`${field} is not sent: the Responses form has no ${field} field.`);
    }
  }
  const parsed = chatRequestSchema.safeParse({
    profile: input.profile,
    ...(input.api === 'responses' ? { api: input.api } : {}),
    request,
  });
  if (!parsed.success) {
    return {
      ok: false,
      problems: parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`),
    };
  }
  // A body the workbench server cannot read would end in a 413: stop it here, saying so.
  const bytes = new TextEncoder().encode(JSON.stringify(parsed.data)).length;
  if (bytes > workbenchBodyLimitBytes) {
    return {
      ok: false,
      problems: [
        `The request is ${(bytes / (1024 * 1024)).toFixed(1)} MiB, over the workbench server’s ${byteSize(workbenchBodyLimitBytes)} limit: it would be refused (413). Shorten the long message or remove images.`,
      ],
    };
  }
  return { ok: true, body: parsed.data, notes };
}
