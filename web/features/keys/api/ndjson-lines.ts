/** Reads a streamed body as lines (NDJSON), each one as soon as its newline arrives. */

/**
 * The non-empty lines of `body`, in order. A chunk may end mid-line or mid-character: the rest
 * waits for the next chunk, and the last line needs no newline.
 */
export async function* readLines(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let pending = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      pending += done ? decoder.decode() : decoder.decode(value, { stream: true });
      const lines = pending.split('\n');
      pending = done ? '' : (lines.pop() ?? '');
      for (const line of lines) {
        const trimmed = line.trim();
        if (trimmed !== '') yield trimmed;
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}
