/**
 * `POST /api/profiles/:profile/child-keys/:id/rotation`: the four rotation steps, run by
 * the BFF, reported as NDJSON lines as each step starts and ends, then one done line. The new key
 * stays on the server; the lines carry masked keys only.
 */
import {
  rotationLineSchema,
  type RotationLine,
  type RotationRequest,
} from '../../../../contract/workbench-api';
import { ApiRequestError, apiSend } from '../../../lib/api-client';
import { childKeyPath } from '../../../api/child-key-paths';
import { readLines } from './ndjson-lines';

/** One line of the stream: as the contract describes it, or text the page cannot read. */
export type RotationEvent =
  { type: 'line'; line: RotationLine } | { type: 'unreadable'; text: string };

/** Reads one NDJSON line; a line that is not the contract's is kept as text, never thrown. */
export function parseRotationLine(text: string): RotationEvent {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { type: 'unreadable', text: text.slice(0, 200) };
  }
  const parsed = rotationLineSchema.safeParse(json);
  return parsed.success
    ? { type: 'line', line: parsed.data }
    : { type: 'unreadable', text: text.slice(0, 200) };
}

/**
 * Starts the rotation and calls `onEvent` for every line as it arrives; resolves when the
 * stream ends. A refusal before step 1 (bad profile, no keys store) throws an `ApiRequestError`.
 */
export async function streamRotation(
  profile: string,
  id: string,
  request: RotationRequest,
  onEvent: (event: RotationEvent) => void,
): Promise<void> {
  const path = childKeyPath(profile, id, 'rotation');
  const response = await apiSend(
    'POST',
    path,
    { headers: { Accept: 'application/x-ndjson' } },
    request,
  );
  if (!response.body) {
    throw new ApiRequestError({
      message: `POST ${path} answered without a body.`,
      status: response.status,
      stage: 'response',
      request: `POST ${path}`,
      advice: 'Open the key’s History to see which steps ran, then try again.',
    });
  }
  for await (const line of readLines(response.body)) onEvent(parseRotationLine(line));
}
