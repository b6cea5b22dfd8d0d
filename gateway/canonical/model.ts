/**
 * The canonical request and response: the bottom layer. Every public form converts into and out
 * of these types, and providers see nothing else. It imports nothing from the rest of the gateway.
 */

export type CanonicalPart =
  | { type: 'text'; text: string }
  /** An image, inline (base64 `data`) or by `url`. */
  | { type: 'image'; mediaType: string; data?: string; url?: string }
  | { type: 'tool_call'; id: string; name: string; arguments: string }
  | { type: 'tool_result'; toolCallId: string; name?: string; content: string; isError?: boolean };

export type CanonicalRole = 'user' | 'assistant' | 'tool';

export type CanonicalMessage = { role: CanonicalRole; parts: CanonicalPart[] };

export type CanonicalTool = {
  name: string;
  description?: string;
  /** JSON schema of the arguments, kept as the caller sent it. */
  parameters: Record<string, unknown>;
};

export type CanonicalToolChoice = 'auto' | 'none' | 'required' | { name: string };

export type CanonicalRequest = {
  /** Catalog id, `<author>/<model>[:variant]`. */
  model: string;
  system: string | null;
  messages: CanonicalMessage[];
  maxTokens: number | null;
  temperature: number | null;
  topP: number | null;
  stop: string[];
  seed: number | null;
  tools: CanonicalTool[];
  toolChoice: CanonicalToolChoice;
  stream: boolean;
};

export type FinishReason = 'stop' | 'length' | 'tool_calls' | 'stop_sequence' | 'content_filter' | 'error';

export type Usage = { promptTokens: number; completionTokens: number };

/** What a provider streams; a non-streamed answer is the same events gathered. */
export type CanonicalEvent =
  | { type: 'text-delta'; text: string }
  | { type: 'tool-call'; id: string; name: string; arguments: string }
  | { type: 'finish'; finishReason: FinishReason; stopSequence: string | null; usage: Usage };

/** The finish event as the pipeline passes it on: with the request's cost. */
export type PricedFinish = Extract<CanonicalEvent, { type: 'finish' }> & { costUsd: number };

export type PipelineEvent = Exclude<CanonicalEvent, { type: 'finish' }> | PricedFinish;

/** A whole answer, gathered from the events. */
export type CanonicalResponse = {
  text: string;
  toolCalls: Array<{ id: string; name: string; arguments: string }>;
  finish: PricedFinish;
};

export async function gatherResponse(events: AsyncIterable<PipelineEvent>): Promise<CanonicalResponse> {
  let text = '';
  const toolCalls: CanonicalResponse['toolCalls'] = [];
  let finish: PricedFinish | undefined;
  for await (const event of events) {
    if (event.type === 'text-delta') text += event.text;
    else if (event.type === 'tool-call') toolCalls.push({ id: event.id, name: event.name, arguments: event.arguments });
    else finish = event;
  }
  if (!finish) throw new Error('The answer ended without a finish event');
  return { text, toolCalls, finish };
}
