/**
 * Errors of an OpenAI-compatible server, from an error status or from inside a stream. Servers
 * behind this kind disagree on the shape (see `errorBodySchema`), and proxies in front of them
 * answer with HTML or nothing at all, so every shape yields at least a message.
 * @see https://platform.openai.com/docs/guides/error-codes
 * @see https://openrouter.ai/docs/api/errors
 */
import { UpstreamError } from '../upstream-error';
import { errorBodySchema, type ErrorDetail } from './wire-schema';

/** A non-2xx answer's body → the upstream's message and error type. */
export function readError(status: number, bodyText: string): { message: string; type?: string } {
  const text = bodyText.trim();
  if (text === '') return { message: `The provider answered HTTP ${status} with no body.` };
  const body = errorBodySchema.safeParse(parseJson(text));
  if (body.success) {
    const { error, message, type } = body.data;
    if (typeof error === 'string') return { message: error };
    if (error) return withType(error.message ?? '', typeOf(error));
    if (message) return withType(message, type ?? undefined);
  }
  if (text.startsWith('<')) {
    const title = /<title[^>]*>([^<]*)<\/title>/i.exec(text)?.[1]?.trim();
    return {
      message: `The provider answered HTTP ${status} with an HTML page${title ? ` (${title})` : ''}.`,
    };
  }
  // Plain text, or JSON in no shape we know: the text itself (the engine cleans and bounds it).
  return { message: text };
}

/**
 * An error sent inside a 200 stream → the failure the pipeline acts on (retry, fall back…). The
 * engine cleans its message, as it cleans a non-2xx answer's.
 */
export function inBandError(error: string | ErrorDetail, providerId: string): UpstreamError {
  const detail = typeof error === 'string' ? { message: error } : error;
  const message = detail.message ?? '';
  const code = typeof error === 'string' ? undefined : error.code;
  return new UpstreamError(
    'in_band',
    providerId,
    message || 'The provider reported an error in the middle of its answer.',
    {
      // OpenRouter's code is the HTTP status the error stands for; OpenAI's is a word.
      ...(typeof code === 'number' ? { status: code } : {}),
      ...optionalType(typeof error === 'string' ? undefined : typeOf(error)),
    },
  );
}

/** The error's type, else its code when that is a word (`model_not_found`), not a status. */
const typeOf = (error: ErrorDetail) =>
  error.type ?? (typeof error.code === 'string' ? error.code : undefined);

const withType = (message: string, type: string | undefined) =>
  type ? { message, type } : { message };

const optionalType = (type: string | undefined) => (type ? { upstreamType: type } : {});

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
