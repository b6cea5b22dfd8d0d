/**
 * The simulated provider: a real engine with no network. It plans a deterministic answer, then
 * streams it one token per event at the configured rate, stopping as soon as the caller aborts.
 */
import type {
  CanonicalEmbeddingRequest,
  CanonicalEvent,
  CanonicalRequest,
  EmbeddingResult,
} from '../../canonical/model';
import { sealSignature } from '../../canonical/reasoning-signature';
import { countPromptTokens, countTokens, tokenize } from '../../canonical/token-count';
import type { ModelRoute, Provider } from '../provider';
import { SIMULATED_PROVIDER_ID } from './models';
import { hashString } from './random';
import { planAnswer, planReasoning } from './answer-plan';
import { abortableSleep } from '../../shared/abortable-sleep';
import { embeddingInputTokens } from '../../canonical/embedding-count';
import { simulatedEmbedding } from './embedding';

export type SimulatedProviderOptions = {
  /** Tokens per second when streaming; 0 sends as fast as possible. */
  tokensPerSecond: number;
  /** Source of randomness for unseeded, non-zero-temperature requests. */
  entropy?: () => number;
  /** Provider id; the built-in one is `simulated`, a providers file may add more. */
  id?: string;
};

export function createSimulatedProvider(options: SimulatedProviderOptions): Provider {
  const entropy = options.entropy ?? Math.random;
  return {
    id: options.id ?? SIMULATED_PROVIDER_ID,
    kind: 'simulated',
    async *stream(request: CanonicalRequest, model: ModelRoute, signal: AbortSignal) {
      const id = options.id ?? SIMULATED_PROVIDER_ID;
      const maxOutputTokens = Math.min(
        request.maxTokens ?? model.maxCompletionTokens,
        model.maxCompletionTokens,
      );
      // A reasoning model thinks first, within its budget and at most half the output bound, so
      // the answer always has room.
      const thought = model.supportedParameters.includes('reasoning')
        ? tokenize(planReasoning(request)).slice(
            0,
            Math.min(request.reasoning?.budgetTokens ?? Infinity, Math.floor(maxOutputTokens / 2)),
          )
        : [];
      const reasoningTokens = thought.length;
      const plan = planAnswer(request, maxOutputTokens - reasoningTokens, entropy);
      const promptTokens = countPromptTokens(request);
      const reasoningUsage = reasoningTokens > 0 ? { reasoningTokens } : {};

      if (reasoningTokens > 0) {
        // The text only when the client wants it; the signature always, as the vendors do.
        if (request.reasoning?.includeText !== false)
          for (const token of thought) {
            if (signal.aborted) return;
            yield { type: 'reasoning-delta', text: token } satisfies CanonicalEvent;
          }
        yield {
          type: 'reasoning-delta',
          text: '',
          signature: sealSignature(id, simulatedSignature(thought.join(''))),
        } satisfies CanonicalEvent;
      }

      if (plan.kind === 'tool_call') {
        yield {
          type: 'tool-call',
          id: plan.id,
          name: plan.name,
          arguments: plan.arguments,
        } satisfies CanonicalEvent;
        yield {
          type: 'finish',
          finishReason: 'tool_calls',
          stopSequence: null,
          usage: {
            promptTokens,
            completionTokens:
              reasoningTokens + countTokens(plan.name) + countTokens(plan.arguments),
            ...reasoningUsage,
          },
        } satisfies CanonicalEvent;
        return;
      }

      const interval =
        request.stream && options.tokensPerSecond > 0 ? 1000 / options.tokensPerSecond : 0;
      const started = performance.now();
      let sent = 0;
      for (const token of plan.tokens) {
        if (interval > 0) {
          const wait = started + sent * interval - performance.now();
          // Tokens that are already due go out together rather than one timer each.
          if (wait >= 1) await abortableSleep(wait, signal);
        }
        if (signal.aborted) return;
        sent += 1;
        yield { type: 'text-delta', text: token } satisfies CanonicalEvent;
      }
      yield {
        type: 'finish',
        finishReason: plan.finishReason,
        stopSequence: plan.stopSequence,
        usage: { promptTokens, completionTokens: reasoningTokens + sent, ...reasoningUsage },
      } satisfies CanonicalEvent;
    },
    // Computed at once: a vector costs microseconds, and no rate applies to a whole answer.
    embed(request: CanonicalEmbeddingRequest): Promise<EmbeddingResult> {
      return Promise.resolve({
        vectors: request.inputs.map((input) =>
          simulatedEmbedding(input, request.dimensions ?? undefined),
        ),
        promptTokens: embeddingInputTokens(request.inputs),
      });
    },
  };
}

/**
 * What the simulated model signs its reasoning with: a digest of the text, so a signature handed
 * back can be told from another (it is not a secret; real vendors' are).
 */
export const simulatedSignature = (reasoning: string) =>
  `sim-${hashString(reasoning).toString(16).padStart(8, '0')}`;
