/**
 * The translation policy's one fact: what the model sees is never dropped. A parameter a provider
 * cannot honour (`topK` toward OpenAI, `thinking` toward a model without reasoning) is dropped and
 * reported; a field that carries the conversation, the system text, the tools or their results is
 * translated or refused. docs/translation.md has the table, field by field.
 */
import type { CanonicalRequest, PublicFormName, TranslationReport } from './model';

/**
 * Per form, the dotted paths (`*`: any one segment) of what the model sees. A path matches when
 * it equals a pattern; deeper paths (`messages.0.content.2.cache_control`) are parameters of it.
 */
export const NEVER_DROPPED: Readonly<Record<PublicFormName, readonly string[]>> = {
  chat_completions: [
    'messages',
    'messages.*',
    'messages.*.content.*',
    'tools',
    'tools.*',
    // The legacy spelling of tools.
    'functions',
    'function_call',
  ],
  messages: [
    'system',
    'system.*',
    'messages',
    'messages.*',
    // A block the canonical request cannot carry (a document, a server tool's result).
    'messages.*.content.*',
    // An image inside a tool result.
    'messages.*.content.*.content.*',
    'tools',
    // A server tool (web search, code execution): a tool the model would be told about.
    'tools.*',
    'mcp_servers',
  ],
  gemini: [
    'contents',
    'contents.*',
    'contents.*.parts.*',
    'systemInstruction',
    'tools',
    // Each key of a Gemini tool entry is a tool: `googleSearch`, `codeExecution`, `urlContext`.
    'tools.*.*',
    'cachedContent',
  ],
  responses: [
    'instructions',
    'input',
    // An item the canonical request cannot carry (a hosted tool's call or result).
    'input.*',
    'input.*.content.*',
    'tools',
    // A hosted tool (`tools.3.web_search`) is not listed: only an upstream of this form can run
    // it, and agent clients send one on every request, so it is dropped and reported.
  ],
};

export function isNeverDropped(form: PublicFormName, path: string): boolean {
  const segments = path.split('.');
  return NEVER_DROPPED[form].some((pattern) => {
    const parts = pattern.split('.');
    return (
      parts.length === segments.length &&
      parts.every((part, index) => part === '*' || part === segments[index])
    );
  });
}

export const emptyReport = (): TranslationReport => ({ dropped: [], adjusted: [] });

/** The report as records and headers carry it: null when nothing was dropped or changed. */
export function reportOrNull(report: TranslationReport | undefined): TranslationReport | null {
  if (!report || (report.dropped.length === 0 && report.adjusted.length === 0)) return null;
  return { dropped: [...new Set(report.dropped)], adjusted: [...new Set(report.adjusted)] };
}

/** A canonical sampling parameter, named the client's way in a report. */
export type CanonicalParameter = 'maxTokens' | 'temperature' | 'topP' | 'stop' | 'seed';

const CLIENT_NAMES: Record<PublicFormName, Record<CanonicalParameter, string>> = {
  chat_completions: {
    maxTokens: 'max_tokens',
    temperature: 'temperature',
    topP: 'top_p',
    stop: 'stop',
    seed: 'seed',
  },
  messages: {
    maxTokens: 'max_tokens',
    temperature: 'temperature',
    topP: 'top_p',
    stop: 'stop_sequences',
    seed: 'seed',
  },
  gemini: {
    maxTokens: 'generationConfig.maxOutputTokens',
    temperature: 'generationConfig.temperature',
    topP: 'generationConfig.topP',
    stop: 'generationConfig.stopSequences',
    seed: 'generationConfig.seed',
  },
  // The form has no stop sequences nor seed; the canonical request never carries them from it.
  responses: {
    maxTokens: 'max_output_tokens',
    temperature: 'temperature',
    topP: 'top_p',
    stop: 'stop',
    seed: 'seed',
  },
};

/** The dotted path under which the client sent a canonical parameter. */
export function clientFieldName(request: CanonicalRequest, parameter: CanonicalParameter): string {
  const form = request.inbound?.form ?? 'chat_completions';
  if (
    parameter === 'maxTokens' &&
    form === 'chat_completions' &&
    request.inbound?.body.max_completion_tokens != null
  ) {
    return 'max_completion_tokens';
  }
  return CLIENT_NAMES[form][parameter];
}
