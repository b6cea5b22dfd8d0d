/**
 * The chat-completions wire as the gateway reads it back: only the fields used, lenient on the
 * rest, so a server that adds fields (OpenRouter's `provider`, vLLM's `stop_reason`…) or leaves
 * optional ones out (llama.cpp, Ollama) still parses.
 * @see https://platform.openai.com/docs/api-reference/chat/object
 * @see https://platform.openai.com/docs/api-reference/chat-streaming/streaming
 */
import { z } from 'zod';
import { reportedCount } from '../upstream/reported-count';

/**
 * Token counts. A usage the gateway cannot read counts as unreported (null), not as a broken
 * answer: the text is still good, and the pipeline estimates what it cannot read.
 */
const usage = z
  .looseObject({
    prompt_tokens: reportedCount,
    completion_tokens: reportedCount,
    /**
     * Of the prompt, the tokens read from the server's prompt cache (OpenAI, OpenRouter) and
     * written to it (OpenRouter's `cache_write_tokens`).
     */
    prompt_tokens_details: z
      .looseObject({ cached_tokens: reportedCount, cache_write_tokens: reportedCount })
      .nullish()
      .catch(null),
    /** Of the completion, the tokens spent reasoning (o-series, DeepSeek, OpenRouter). */
    completion_tokens_details: z
      .looseObject({ reasoning_tokens: reportedCount })
      .nullish()
      .catch(null),
  })
  .nullish()
  .catch(null);

/** `{ message, type, code }`; OpenAI's code is a string, OpenRouter's and llama.cpp's a status. */
export const errorDetailSchema = z.looseObject({
  message: z.string().nullish(),
  type: z.string().nullish(),
  code: z.union([z.string(), z.number()]).nullish(),
});

/**
 * An error body in any of the shapes these servers use: `{error:{message,type,code}}` (OpenAI,
 * OpenRouter, llama.cpp, LiteLLM), `{error:"text"}` (Ollama), `{message,type}` (vLLM).
 */
export const errorBodySchema = z.looseObject({
  error: z.union([z.string(), errorDetailSchema]).nullish(),
  message: z.string().nullish(),
  type: z.string().nullish(),
});

/**
 * Reasoning text, where the server sends it: `reasoning_content` (DeepSeek, vLLM, llama.cpp) or
 * `reasoning` (OpenRouter, Ollama). OpenAI itself sends none on this API.
 * @see https://api-docs.deepseek.com/guides/reasoning_model
 * @see https://openrouter.ai/docs/use-cases/reasoning-tokens
 */
const reasoningText = {
  reasoning_content: z.string().nullish().catch(null),
  reasoning: z.string().nullish().catch(null),
};

const toolCall = z.looseObject({
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string(), arguments: z.string().nullish() }),
});

/** A whole (non-streamed) chat completion. */
export const chatCompletionSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        message: z.looseObject({
          content: z.string().nullish(),
          tool_calls: z.array(toolCall).nullish(),
          ...reasoningText,
        }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage,
});

const toolCallFragment = z.looseObject({
  /** Which call the fragment belongs to; a few servers leave it out when each call comes whole. */
  index: z.number().int().nonnegative().nullish(),
  id: z.string().nullish(),
  function: z
    .looseObject({ name: z.string().nullish(), arguments: z.string().nullish() })
    .nullish(),
});

/** One `chat.completion.chunk` of a stream. */
export const chatCompletionChunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        index: z.number().int().nullish(),
        delta: z
          .looseObject({
            content: z.string().nullish(),
            tool_calls: z.array(toolCallFragment).nullish(),
            ...reasoningText,
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage,
});

/** A chunk that is an error instead of an answer (OpenRouter sends these mid-stream). */
export const inBandErrorChunkSchema = z.looseObject({
  error: z.union([z.string(), errorDetailSchema]),
});

export type ErrorDetail = z.infer<typeof errorDetailSchema>;
export type ChatCompletion = z.infer<typeof chatCompletionSchema>;
export type ChatCompletionChunk = z.infer<typeof chatCompletionChunkSchema>;
export type WireUsage = z.infer<typeof usage>;
