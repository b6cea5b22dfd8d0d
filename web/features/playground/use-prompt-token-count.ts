/**
 * The prompt's token count for the composer's meter: the gateway's own count (`POST
 * /api/count-tokens`, free) once the typing has paused, the four-characters estimate meanwhile,
 * and the estimate again when the count cannot be had (a prompt with large images goes past the
 * counting route's body limit, or the gateway does not answer).
 */
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import {
  tokenCountSchema,
  type ChatMessage,
  type ChatRequest,
} from '../../../contract/workbench-api';
import { apiPost } from '../../lib/api-client';

/** How long the typing must pause before the gateway is asked. */
export const countPauseMs = 600;
/** Prompts larger than this are not sent to be counted: the estimate stands. */
export const countableBytes = 256 * 1024;

export type PromptTokens = { tokens: number; counted: boolean };

export function usePromptTokenCount(input: {
  profile: string | null;
  model: string;
  messages: ChatMessage[];
  estimate: number;
}): PromptTokens {
  const { profile, model, messages, estimate } = input;
  const body: ChatRequest | null =
    profile && model && messages.length > 0 ? { profile, request: { model, messages } } : null;
  const key = body ? JSON.stringify(body) : null;
  const countable = key !== null && key.length <= countableBytes;
  const [paused, setPaused] = useState<string | null>(null);
  useEffect(() => {
    if (!countable) return;
    const timer = setTimeout(() => setPaused(key), countPauseMs);
    return () => clearTimeout(timer);
  }, [countable, key]);

  const settled = countable && paused === key;
  const count = useQuery({
    queryKey: ['count-tokens', key],
    queryFn: ({ signal }) => apiPost('/api/count-tokens', body, tokenCountSchema, { signal }),
    enabled: settled,
    staleTime: Infinity,
    retry: false,
  });
  return settled && count.data
    ? { tokens: count.data.input_tokens, counted: true }
    : { tokens: estimate, counted: false };
}
