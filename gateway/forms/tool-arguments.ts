/**
 * A tool call's arguments (JSON text canonically) for the forms whose calls carry an object (the
 * Messages `input`, the Gemini `args`); the chat-completions form passes the text on as it came.
 *
 * - No text at all is a call without arguments: `{}` (some local servers send `""`).
 * - Text that begins an object but does not parse is `UNFINISHED`: a call cut short, which only
 *   the last call of an answer that stopped at max_tokens may be (each form decides what it shows
 *   of one).
 * - Anything else (an array, a string, a number, null, garbage) is the provider breaking the
 *   form's rule: a 502, never an `{}` the client would run the tool with.
 */
import type { CanonicalEvent } from '../canonical/model';
import { GatewayError } from '../errors';
import type { AnswerCheck } from '../pipeline/inference-pipeline';

export const UNFINISHED = 'unfinished';

export function toolArguments(
  argumentsText: string,
  toolName: string,
): Record<string, unknown> | typeof UNFINISHED {
  if (argumentsText.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(argumentsText);
  } catch {
    if (argumentsText.trimStart().startsWith('{')) return UNFINISHED;
    throw toolArgumentsError(toolName, 'not JSON');
  }
  if (parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed))
    return parsed as Record<string, unknown>;
  const what = parsed === null ? 'null' : Array.isArray(parsed) ? 'an array' : `a ${typeof parsed}`;
  throw toolArgumentsError(toolName, what);
}

/** A call cut short that is not the last of an answer stopped at max_tokens: broken, not cut. */
export const brokenToolArguments = (toolName: string) =>
  toolArgumentsError(toolName, 'broken or unfinished JSON');

/**
 * The rule above as the pipeline applies it to an answer, event by event, before any goes out (and
 * before its record says completed), for the forms whose calls carry an object: a call cut short
 * is held until the next event, which must be a finish at max_tokens, as in their stream
 * transforms. The converters keep their own checks.
 */
export function objectArgumentsCheck(): AnswerCheck {
  let cutCall: string | null = null;
  return (event: CanonicalEvent) => {
    if (cutCall !== null && !(event.type === 'finish' && event.finishReason === 'length'))
      return brokenToolArguments(cutCall);
    if (event.type !== 'tool-call') return null;
    try {
      if (toolArguments(event.arguments, event.name) === UNFINISHED) cutCall = event.name;
      return null;
    } catch (error) {
      if (error instanceof GatewayError) return error;
      throw error;
    }
  };
}

/** The provider's fault, reported as an answer the gateway cannot read is (502, retry later). */
function toolArgumentsError(toolName: string, what: string): GatewayError {
  return new GatewayError({
    status: 502,
    type: 'provider_error',
    stage: 'provider',
    message:
      `The provider sent an answer the gateway cannot read: its call to tool '${toolName.slice(0, 64)}' ` +
      `has arguments that are not a JSON object (${what}), and this form needs one. Retry later.`,
    retryAfterSeconds: 5,
  });
}
