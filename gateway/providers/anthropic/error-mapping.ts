/**
 * The vendor's errors: the body of a non-2xx answer, and the status an in-band `error` event
 * stands for (it arrives inside a 200 stream, so it has none of its own).
 * @see https://docs.anthropic.com/en/api/errors
 */
import { errorBodySchema } from './wire-schema';

/**
 * `{type: 'error', error: {type, message}}` → its message and type. A body that is not that
 * (an HTML page from a proxy, nothing at all) gives no message, and the engine says `HTTP <status>`;
 * short plain text is passed on, since it is all the upstream said.
 */
export function readError(status: number, bodyText: string): { message: string; type?: string } {
  const text = bodyText.trim();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { message: looksLikeHtml(text) ? '' : text };
  }
  const body = errorBodySchema.safeParse(parsed);
  if (!body.success) return { message: '' };
  return { message: body.data.error.message ?? '', type: body.data.error.type };
}

const looksLikeHtml = (text: string) =>
  /^<(?:!doctype|html|head|body|\?xml)/i.test(text) || /<\/\w+>/.test(text);

/**
 * The HTTP status an in-band error type stands for, so the pipeline retries or falls back as it
 * would for the same status: overloaded is the vendor's 529, a rate limit 429, the rest 500.
 */
export function inBandStatus(type: string | undefined): number {
  switch (type) {
    case 'overloaded_error':
      return 529;
    case 'rate_limit_error':
      return 429;
    default:
      return 500;
  }
}
