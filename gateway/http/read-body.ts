/** Reads a JSON request body with a size limit; every failure is a GatewayError naming it. */
import type { IncomingMessage } from 'node:http';
import { GatewayError, invalidRequest } from '../errors';

export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);

  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > maxBytes) {
      request.resume();
      throw tooLarge(maxBytes);
    }
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') throw invalidRequest('The request body is empty; send a JSON object.');
  try {
    return JSON.parse(text);
  } catch (error) {
    throw invalidRequest(`The request body is not valid JSON (${(error as Error).message}).`);
  }
}

const tooLarge = (maxBytes: number) =>
  new GatewayError(
    413,
    'request_too_large',
    'validation',
    `The request body is larger than ${maxBytes} bytes. Send less (e.g. smaller images).`,
  );
