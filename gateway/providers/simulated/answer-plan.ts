/**
 * Decides what the simulated model answers: a tool call or text, which text, how long, and where
 * it stops. Pure and deterministic for a given seed, so tests can rely on it.
 */
import type {
  CanonicalMessage,
  CanonicalRequest,
  CanonicalTool,
  FinishReason,
} from '../../canonical/model';
import { tokenize } from '../../canonical/token-count';
import { createRandom, hashString } from './random';
import { instanceOf } from './schema-instance';

export type AnswerPlan =
  | { kind: 'tool_call'; id: string; name: string; arguments: string }
  | { kind: 'text'; tokens: string[]; finishReason: FinishReason; stopSequence: string | null };

/** What the simulated model says: whole sentences, so a streamed answer reads like prose. */
const SENTENCES = [
  'The gateway routes each request to a model and counts every token it sends back.',
  'Balances settle a little later, so a budget holds even when many requests arrive at once.',
  'Streams arrive chunk by chunk, with the usage in the last chunk.',
  'Keys stay on the server and never reach the browser.',
  'A trace id follows the request through the logs, the errors and the generation record.',
  'An error names the field that was wrong and says what to do next.',
  'This answer is simulated: the same seed gives the same words every time.',
  'Prices are counted in whole nano-dollars, so the sums never drift.',
  'Before a request runs, its worst-case cost is reserved against the key.',
  'When a client stops reading, it pays only for the tokens it received.',
  'Every model in the catalog answers in each of the three forms.',
  "A shared child key spends its parent's balance and reports it too.",
  'Tool calls come back as structured arguments that match the declared schema.',
  'Images arrive as content parts, and only models that list image input accept them.',
  'Lower max_tokens to make an answer shorter and cheaper.',
  'Asking for a number of words makes a longer answer, handy for trying Stop.',
  'Grace is an admission allowance, never spendable money.',
  'Settlement moves pending charges into consumption on a timer.',
];

const DEFAULT_MAX_WORDS = 4_000;

const textOf = (message: CanonicalMessage | undefined) =>
  (message?.parts ?? [])
    .map((part) => (part.type === 'text' ? part.text : ''))
    .join(' ')
    .trim();

export function planAnswer(
  request: CanonicalRequest,
  maxOutputTokens: number,
  entropy: () => number,
): AnswerPlan {
  const last = request.messages.at(-1);
  const lastIsToolResult = last?.parts.some((part) => part.type === 'tool_result') ?? false;
  const random = createRandom(seedOf(request, entropy));

  const tool = chooseTool(request, lastIsToolResult);
  if (tool) {
    const id = `call_${Math.floor(random() * 2 ** 48)
      .toString(16)
      .padStart(12, '0')}`;
    return {
      kind: 'tool_call',
      id,
      name: tool.name,
      arguments: JSON.stringify(argumentsFor(tool, textOf(last))),
    };
  }

  const text = request.responseFormat
    ? jsonAnswer(request, textOf(last), random)
    : composeText(last, lastIsToolResult, random);
  const tokens = tokenize(text).slice(0, maxOutputTokens);
  const truncated = tokens.length < tokenize(text).length;
  const stopped = applyStopSequences(tokens, request.stop);
  if (stopped)
    return {
      kind: 'text',
      tokens: stopped.tokens,
      finishReason: 'stop_sequence',
      stopSequence: stopped.sequence,
    };
  return { kind: 'text', tokens, finishReason: truncated ? 'length' : 'stop', stopSequence: null };
}

/**
 * Structured output: a value that validates against the schema asked for, or, for any JSON object,
 * a small one. Strings take the subject of the user's message, as tool arguments do.
 */
function jsonAnswer(request: CanonicalRequest, userText: string, random: () => number): string {
  const format = request.responseFormat!;
  if (format.type === 'json_schema')
    return JSON.stringify(instanceOf(format.schema, subjectOf(userText)));
  return JSON.stringify({
    answer: SENTENCES[Math.floor(random() * SENTENCES.length)],
    subject: subjectOf(userText),
  });
}

/**
 * The simulated model's reasoning before it answers: a few sentences about the question, longer
 * for a higher effort. Deterministic for a conversation.
 */
export function planReasoning(request: CanonicalRequest): string {
  const random = createRandom(hashString(JSON.stringify(['reasoning', request.messages])));
  const words = { none: 0, minimal: 12, low: 24, medium: 48, high: 96, xhigh: 160 }[
    request.reasoning?.effort ?? 'medium'
  ];
  const subject = subjectOf(textOf(request.messages.at(-1)));
  const sentences = [`The question is about ${subject}; let me think it through.`];
  let count = sentences[0]!.split(' ').length;
  while (count < words) {
    const sentence = SENTENCES[Math.floor(random() * SENTENCES.length)]!;
    sentences.push(sentence);
    count += sentence.split(' ').length;
  }
  return words === 0 ? '' : sentences.join(' ');
}

/**
 * Same seed, same text. Without a seed, temperature 0 is deterministic per conversation, and any
 * other temperature varies from call to call, as a real model's sampling does.
 */
function seedOf(request: CanonicalRequest, entropy: () => number): number {
  const conversation = hashString(
    JSON.stringify([request.model, request.system, request.messages]),
  );
  if (request.seed !== null) return hashString(`${request.seed}:${conversation}`);
  if (request.temperature === 0) return conversation;
  return Math.floor(entropy() * 2 ** 32);
}

function chooseTool(
  request: CanonicalRequest,
  lastIsToolResult: boolean,
): CanonicalTool | undefined {
  if (request.tools.length === 0 || request.toolChoice === 'none') return undefined;
  if (typeof request.toolChoice === 'object') {
    const name = request.toolChoice.name;
    return request.tools.find((tool) => tool.name === name);
  }
  // Once a tool has answered, the model answers in text, so a round trip ends.
  if (request.toolChoice === 'auto' && lastIsToolResult) return undefined;
  return request.tools[0];
}

function argumentsFor(tool: CanonicalTool, userText: string): Record<string, unknown> {
  const properties = (tool.parameters.properties ?? {}) as Record<
    string,
    { type?: string; enum?: unknown[] }
  >;
  const phrase = subjectOf(userText);
  return Object.fromEntries(
    Object.entries(properties).map(([name, property]) => {
      if (Array.isArray(property.enum) && property.enum.length > 0) return [name, property.enum[0]];
      switch (property.type) {
        case 'number':
        case 'integer':
          return [name, 42];
        case 'boolean':
          return [name, true];
        case 'array':
          return [name, []];
        case 'object':
          return [name, {}];
        default:
          return [name, phrase];
      }
    }),
  );
}

/**
 * The word a string argument most likely wants: the last capitalised word after the first
 * ("weather in Paris" → Paris), else the last word of four letters or more, else "example".
 */
export function subjectOf(userText: string): string {
  const words = userText.match(/[\p{L}\p{N}'-]+/gu) ?? [];
  const names = words.slice(1).filter((word) => /^\p{Lu}/u.test(word));
  return names.at(-1) ?? words.filter((word) => word.length >= 4).at(-1) ?? 'example';
}

function composeText(
  last: CanonicalMessage | undefined,
  lastIsToolResult: boolean,
  random: () => number,
): string {
  const opening: string[] = [];
  if (lastIsToolResult) {
    for (const part of last!.parts) {
      if (part.type === 'tool_result') {
        opening.push(
          `The tool ${part.name ?? part.toolCallId} returned: ${part.content.slice(0, 200)}.`,
        );
      }
    }
  } else {
    const said = textOf(last).split(/\s+/).filter(Boolean);
    if (said.length > 0) {
      opening.push(`You said: "${said.slice(0, 12).join(' ')}${said.length > 12 ? ' …' : ''}".`);
    }
    const images = (last?.parts ?? []).filter((part) => part.type === 'image');
    if (images.length > 0) {
      const kinds = images
        .map((image) => (image.type === 'image' ? image.mediaType : ''))
        .join(', ');
      opening.push(`I received ${images.length} image${images.length > 1 ? 's' : ''} (${kinds}).`);
    }
  }
  // "write 300 words" asks for a long answer; otherwise a short paragraph.
  const asked = /(\d{1,5})\s+(?:words|tokens)/i.exec(textOf(last));
  const wordCount = asked
    ? Math.min(Number(asked[1]), DEFAULT_MAX_WORDS)
    : 20 + Math.floor(random() * 50);
  const sentences: string[] = [];
  let words = 0;
  while (words < wordCount) {
    const sentence = SENTENCES[Math.floor(random() * SENTENCES.length)]!;
    sentences.push(sentence);
    words += sentence.split(' ').length;
  }
  const prose = [...opening, ...sentences].join(' ');
  const wanted = markdownAsked(textOf(last));
  return wanted.size === 0 ? prose : markdownAnswer(prose, wanted, subjectOf(textOf(last)), random);
}

type MarkdownPart = 'heading' | 'list' | 'code' | 'table';

/**
 * The Markdown a prompt asks for: each part it names ("in a table", "bullet points", "a code
 * example"), or all of them when it asks for Markdown itself, so a workbench can show how
 * replies render. Ordinary words ("list", "code") alone do not count.
 */
function markdownAsked(text: string): Set<MarkdownPart> {
  if (/\bmarkdown\b/i.test(text)) return new Set(['heading', 'list', 'code', 'table']);
  const parts = new Set<MarkdownPart>();
  if (/\bheadings?\b/i.test(text)) parts.add('heading');
  if (/\b(?:a|as a|in a) (?:bulleted |numbered )?list\b|\bbullet(?:s| points?)\b/i.test(text))
    parts.add('list');
  if (/\bcode (?:blocks?|examples?|samples?|snippets?)\b/i.test(text)) parts.add('code');
  if (/\b(?:a|in a|as a) table\b|\btables\b/i.test(text)) parts.add('table');
  return parts;
}

function markdownAnswer(
  prose: string,
  wanted: Set<MarkdownPart>,
  subject: string,
  random: () => number,
): string {
  const pick = () => SENTENCES[Math.floor(random() * SENTENCES.length)]!;
  const blocks: string[] = [];
  if (wanted.has('heading')) blocks.push(`## About ${subject}`);
  blocks.push(prose);
  if (wanted.has('list'))
    blocks.push([pick(), pick(), pick()].map((item) => `- ${item}`).join('\n'));
  if (wanted.has('code')) {
    blocks.push(
      [
        '```ts',
        `const reply = await client.chat.completions.create({`,
        `  model: 'sim/chat-standard',`,
        `  messages: [{ role: 'user', content: 'Tell me about gateways.' }],`,
        '});',
        'console.log(reply.choices[0].message.content);',
        '```',
      ].join('\n'),
    );
  }
  if (wanted.has('table')) {
    blocks.push(
      [
        '| what | how the gateway handles it |',
        '| --- | --- |',
        '| keys | stay on the server |',
        '| money | counted in whole nano-dollars |',
        '| streams | usage in the last chunk |',
      ].join('\n'),
    );
  }
  return blocks.join('\n\n');
}

/** Cuts the answer before the earliest stop sequence, as vendors do (the sequence is not sent). */
function applyStopSequences(
  tokens: string[],
  stops: string[],
): { tokens: string[]; sequence: string } | null {
  if (stops.length === 0) return null;
  const text = tokens.join('');
  let earliest: { index: number; sequence: string } | null = null;
  for (const sequence of stops) {
    const index = sequence ? text.indexOf(sequence) : -1;
    if (index >= 0 && (!earliest || index < earliest.index)) earliest = { index, sequence };
  }
  if (!earliest) return null;
  return { tokens: tokenize(text.slice(0, earliest.index)), sequence: earliest.sequence };
}
