/**
 * `cf-ray` trace ids: 16 hex digits, a dash and a location code, the form callers already parse.
 * Random bytes are drawn in batches so an id costs no system call on the hot path.
 */
import crypto from 'node:crypto';

/** Where this gateway runs; a local embedded gateway says LCL. */
export const LOCATION_CODE = 'LCL';

const pool = Buffer.alloc(8 * 512);
let offset = pool.length;

export function newTraceId(): string {
  if (offset >= pool.length) {
    crypto.randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('hex', offset, offset + 8);
  offset += 8;
  return `${id}-${LOCATION_CODE}`;
}
