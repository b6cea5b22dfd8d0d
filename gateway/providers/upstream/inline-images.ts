/**
 * For upstreams that cannot fetch an image URL themselves: the gateway fetches it and sends it
 * inline as base64. Bounded in size and time, images only, and (unless the operator allows it)
 * never from a loopback, private or link-local address, so a tenant cannot make the gateway read
 * its own network.
 */
import { Agent, request } from 'undici';
import { discardBody } from '../../../contract/http-client';
import type { CanonicalMessage, CanonicalRequest } from '../../canonical/model';
import { invalidRequest } from '../../errors';
import {
  AddressRefused,
  checkedAddresses,
  pinnedLookup,
  systemResolve,
  type Resolve,
} from '../../shared/public-address';

export type ImageFetchPolicy = {
  allowPrivateHosts: boolean;
  /** How a host name is resolved (tests pass a stub). */
  resolve?: Resolve;
};

const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
const FETCH_TIMEOUT_MS = 10_000;

export async function inlineImageUrls(
  request: CanonicalRequest,
  policy: ImageFetchPolicy,
  signal: AbortSignal,
): Promise<CanonicalRequest> {
  if (
    !request.messages.some((message) =>
      message.parts.some((part) => part.type === 'image' && part.url),
    )
  ) {
    return request;
  }
  const messages: CanonicalMessage[] = [];
  for (const message of request.messages) {
    const parts = [];
    for (const part of message.parts) {
      if (part.type === 'image' && part.url && !part.data) {
        parts.push({ type: 'image' as const, ...(await fetchImage(part.url, policy, signal)) });
      } else parts.push(part);
    }
    messages.push({ ...message, parts });
  }
  return { ...request, messages };
}

async function fetchImage(
  url: string,
  policy: ImageFetchPolicy,
  signal: AbortSignal,
): Promise<{ mediaType: string; data: string }> {
  const shown = url.length > 80 ? `${url.slice(0, 80)}…` : url;
  const refuse = (why: string) =>
    invalidRequest(
      `The image at ${shown} could not be used: ${why}. Send it inline (base64) instead.`,
    );
  const parsed = new URL(url);
  let dispatcher: Agent | undefined;
  if (!policy.allowPrivateHosts) {
    let addresses: string[];
    try {
      addresses = await checkedAddresses(parsed.hostname, policy.resolve ?? systemResolve, false);
    } catch (error) {
      if (error instanceof AddressRefused) throw refuse('its host is not a public address');
      throw error;
    }
    // The connection goes to the addresses just checked, never to a fresh answer (rebinding).
    dispatcher = new Agent({ connect: { lookup: pinnedLookup(addresses) } });
  }
  try {
    return await fetchChecked(url, signal, refuse, dispatcher);
  } finally {
    void dispatcher?.close();
  }
}

async function fetchChecked(
  url: string,
  signal: AbortSignal,
  refuse: (why: string) => Error,
  dispatcher: Agent | undefined,
): Promise<{ mediaType: string; data: string }> {
  let answer;
  try {
    answer = await request(url, {
      method: 'GET',
      signal: AbortSignal.any([signal, AbortSignal.timeout(FETCH_TIMEOUT_MS)]),
      headersTimeout: FETCH_TIMEOUT_MS,
      bodyTimeout: FETCH_TIMEOUT_MS,
      maxRedirections: 0,
      ...(dispatcher ? { dispatcher } : {}),
    } as Parameters<typeof request>[1]);
  } catch {
    throw refuse('it could not be fetched');
  }
  const contentType = String(answer.headers['content-type'] ?? '')
    .split(';')[0]!
    .trim();
  if (answer.statusCode !== 200 || !contentType.startsWith('image/')) {
    discardBody(answer.body);
    throw refuse(
      answer.statusCode !== 200 ? `it answered HTTP ${answer.statusCode}` : 'it is not an image',
    );
  }
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of answer.body) {
    size += (chunk as Buffer).length;
    if (size > MAX_IMAGE_BYTES) {
      discardBody(answer.body);
      throw refuse(`it is larger than ${MAX_IMAGE_BYTES} bytes`);
    }
    chunks.push(chunk as Buffer);
  }
  return { mediaType: contentType, data: Buffer.concat(chunks).toString('base64') };
}
