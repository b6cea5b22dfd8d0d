/**
 * The raw view's texts: the exact body the browser sent to the BFF, the gateway request the BFF
 * makes from it (with the key masked: the browser never has it), and what came back.
 */
import { toResponsesRequest } from '../../../contract/responses-form';
import type { ChatRequest } from '../../../contract/workbench-api';
import { openAiBaseUrl } from './code-export/shared';
import type { RawResponse, RawStreamEvent } from './playground-types';

/** Shown when the profile's masked key is not known (yet). */
export const unknownMaskedKey = 'sk-…masked';

export function bffRequestText(body: ChatRequest): string {
  return [
    'POST /api/chat',
    'Content-Type: application/json',
    '',
    JSON.stringify(body, null, 2),
  ].join('\n');
}

/**
 * The gateway call as the BFF sends it: the profile becomes the key, the request goes as is, or
 * in the Responses form when that API was chosen (whose answer the BFF reads back as chat).
 */
export function gatewayRequestText(
  gatewayBaseUrl: string,
  body: ChatRequest,
  maskedKey: string | null,
): string {
  const responses = body.api === 'responses';
  return [
    `POST ${openAiBaseUrl(gatewayBaseUrl)}/${responses ? 'responses' : 'chat/completions'}`,
    `Authorization: Bearer ${maskedKey ?? unknownMaskedKey}`,
    'Content-Type: application/json',
    ...(body.request.stream ? ['Accept: text/event-stream'] : []),
    '',
    JSON.stringify(responses ? toResponsesRequest(body.request).body : body.request, null, 2),
  ].join('\n');
}

/** The stream's events in their wire form, `event:` lines included. */
export function streamEventsText(events: RawStreamEvent[]): string {
  return events
    .map((event) =>
      [
        ...(event.event !== 'message' ? [`event: ${event.event}`] : []),
        ...event.data.split('\n').map((line) => `data: ${line}`),
      ].join('\n'),
    )
    .join('\n\n');
}

/**
 * The named events the workbench server adds around the gateway's stream (server/playground/chat-proxy.ts):
 * the gateway sends only `data:` lines, so a named event is never the gateway's.
 */
const workbenchEventNames = new Set(['meta', 'done', 'error']);

/** A stream's events parted into the gateway's and the workbench server's own. */
export function partStreamEvents(events: RawStreamEvent[]): {
  gateway: RawStreamEvent[];
  workbench: RawStreamEvent[];
} {
  return {
    gateway: events.filter((event) => !workbenchEventNames.has(event.event)),
    workbench: events.filter((event) => workbenchEventNames.has(event.event)),
  };
}

/** What came back; for a stream, the gateway's events only (the workbench's are shown apart). */
export function responseText(response: RawResponse | null): string {
  if (!response) return '(nothing received yet)';
  if (response.kind === 'json') return JSON.stringify(response.body, null, 2) ?? '(empty body)';
  const { gateway } = partStreamEvents(response.events);
  return gateway.length > 0 ? streamEventsText(gateway) : '(no gateway events yet)';
}
