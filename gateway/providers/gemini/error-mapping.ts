/**
 * The vendor's errors: a non-2xx body, read for its message and status name, and an error sent
 * inside a 200 stream. Error bodies are `google.rpc.Status` JSON, but a proxy or load balancer
 * in front of the API may answer HTML or nothing at all.
 * @see https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 */
import { UpstreamError } from '../upstream-error';
import { errorBodySchema } from './wire-schema';

type ErrorStatus = { code?: number; message?: string; status?: string };

/** A non-2xx answer → its message and the vendor's status name (`RESOURCE_EXHAUSTED`…). */
export function readGeminiError(
  _status: number,
  bodyText: string,
): { message: string; type?: string } {
  const text = bodyText.trim();
  if (text === '') return { message: '' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { message: looksLikeHtml(text) ? htmlTitle(text) : text };
  }
  // `streamGenerateContent` without `alt=sse` streams a JSON array, and so wraps its errors in one.
  const body = errorBodySchema.safeParse(Array.isArray(parsed) ? parsed[0] : parsed);
  if (!body.success) return { message: text };
  const { message, status } = body.data.error;
  return { message: message ?? '', ...(status ? { type: status } : {}) };
}

/**
 * An error the vendor sends as a stream event after answering 200 (an overloaded model, mostly).
 * The engine cleans its message, as it cleans a non-2xx answer's.
 */
export function inBandError(error: ErrorStatus, providerId: string): UpstreamError {
  return new UpstreamError(
    'in_band',
    providerId,
    error.message || 'The provider reported an error in the middle of its answer.',
    {
      ...(error.code !== undefined ? { status: error.code } : {}),
      ...(error.status ? { upstreamType: error.status } : {}),
    },
  );
}

export const malformed = (providerId: string, message: string) =>
  new UpstreamError('malformed', providerId, message);

const looksLikeHtml = (text: string) => /^<(?:!doctype|html|head|body)\b/i.test(text);

/** An HTML error page says what it is in its title ("Error 404 (Not Found)!!1"); the rest is markup. */
function htmlTitle(html: string): string {
  const title = /<title[^>]*>([^<]*)<\/title>/i.exec(html)?.[1];
  return title?.trim() ?? '';
}
