/**
 * Token counting (Messages `count_tokens`, Gemini `countTokens`): it runs no model and costs
 * nothing, but it reads and walks a body, so it is bounded like inference: a key that cannot
 * spend is refused before the body is read, the request holds one of the key's (and its
 * account's) concurrency slots, and its body limit is far below the inference routes' (it carries
 * no image the count needs).
 * It takes nothing from the key's rate limits (limits/rate-limits.ts) and sends no rate-limit
 * headers: they meter inference, and counting is free (as Anthropic keeps `count_tokens` apart
 * from its message limits). The slots and the body limit already bound it.
 */
import { authenticate, type AuthForm } from '../auth/authenticate';
import { readJsonBody } from '../http/read-body';
import { sendJson } from '../http/respond';
import type { RouteContext } from '../http/router';
import { refuseUnusableKey, type GatewayParts } from './route-kit';

/** What counting can refuse with: the body (400, 413, 415), the key (401, 402), the model (404), its slots (429). */
export const COUNT_TOKENS_ERRORS = [400, 401, 402, 404, 413, 415, 429] as const;

/** What counting reads: the key (and its slot) and the body's bound; no budget, no provider. */
export type CountTokensParts = Pick<GatewayParts, 'clock' | 'config' | 'registry' | 'slots'>;

export async function serveCountTokens(
  parts: CountTokensParts,
  context: RouteContext,
  auth: AuthForm,
  count: (body: unknown) => unknown,
): Promise<void> {
  const key = await authenticate(context.request, context.url, auth, parts.registry);
  refuseUnusableKey(parts, key);
  const releaseSlot = parts.slots.acquire(key);
  try {
    const body = await readJsonBody(context.request, parts.config.maxCountBodyBytes);
    sendJson(context.response, 200, count(body));
  } finally {
    releaseSlot();
  }
}
