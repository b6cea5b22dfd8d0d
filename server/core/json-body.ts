/**
 * Reads the API's JSON request bodies, with a bound, and answers a body that breaks a rule at
 * once. Express's own parser (body-parser) reads the rest of a refused body to its very end before
 * it answers: a body over the limit was read whole, and a chunked body with no end was read for as
 * long as it came, with no answer. Here the refusal goes out first, and what is left of the body
 * is discarded only up to a bound (contract/unread-body.ts).
 *
 * The workbench page is the only client: it sends UTF-8 JSON objects, uncompressed.
 */
import type { RequestHandler } from 'express';
import getRawBody from 'raw-body';
import { byteSize } from '../../contract/byte-size';
import { declaresBody } from '../../contract/unread-body';
import { ApiFailure, validationFailure } from './errors';
import { mediaType } from './media-type';

interface ReadError {
  type?: string;
  status?: number;
}

function readFailure(error: ReadError, limitBytes: number): ApiFailure {
  if (error.type === 'entity.too.large') {
    return new ApiFailure(413, {
      message: `body: the request is larger than the workbench takes (${byteSize(limitBytes)}).`,
      stage: 'validation',
      field: 'body',
      advice:
        'Send less at once: smaller or fewer images, or a shorter conversation (start a new one, or remove earlier turns).',
    });
  }
  // Cut short, or not the length it declared: nothing to answer about its content.
  return new ApiFailure(400, {
    message: 'The request body could not be read.',
    stage: 'validation',
  });
}

export function jsonBody(limitBytes: number): RequestHandler {
  return (request, _response, next) => {
    if (!declaresBody(request)) return next();
    const { type, charset } = mediaType(request.headers['content-type']);
    // State changes without JSON were refused before this (security.ts); anything else keeps no
    // body, as Express's parser leaves one it does not parse.
    if (type !== 'application/json') return next();
    if (charset !== null && charset !== 'utf-8' && charset !== 'utf8') {
      return next(validationFailure('body', 'unsupported encoding or charset', 415));
    }
    const encoding = (request.headers['content-encoding'] ?? '').trim().toLowerCase();
    if (encoding !== '' && encoding !== 'identity') {
      return next(validationFailure('body', 'unsupported encoding or charset', 415));
    }
    // raw-body refuses a declared length over the limit before reading, and stops (pauses the
    // request, reading no more) the moment a body without one goes over it.
    getRawBody(request, {
      length: request.headers['content-length'],
      limit: limitBytes,
      encoding: 'utf8',
    }).then(
      (text) => {
        const trimmed = text.trimStart();
        if (trimmed === '') {
          request.body = {};
          return next();
        }
        // Objects and arrays only, as the strict JSON parser before this took.
        if (trimmed[0] !== '{' && trimmed[0] !== '[') {
          return next(validationFailure('body', 'is not valid JSON'));
        }
        try {
          request.body = JSON.parse(text) as unknown;
        } catch {
          return next(validationFailure('body', 'is not valid JSON'));
        }
        next();
      },
      (error: ReadError) => next(readFailure(error, limitBytes)),
    );
  };
}
