/**
 * A small Server-Sent Events parser for the BFF's `POST /api/chat` stream. `EventSource` cannot
 * POST or be aborted per request, so the stream is read from `fetch` and split here.
 *
 * @see https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation
 */

/** One dispatched event: its `event:` name (`message` when none was given) and its data. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

/**
 * Feeds text chunks in, calls `onEvent` for each complete event. Chunks may split lines and
 * events anywhere (even between `\r` and `\n`); call `flush` when the stream ends.
 */
export function createSseParser(onEvent: (event: ServerSentEvent) => void) {
  let buffer = '';
  let eventName = '';
  let dataLines: string[] = [];

  function dispatch() {
    if (dataLines.length > 0)
      onEvent({ event: eventName || 'message', data: dataLines.join('\n') });
    eventName = '';
    dataLines = [];
  }

  function processLine(line: string) {
    if (line === '') {
      dispatch();
      return;
    }
    // A comment line keeps the connection alive; it carries nothing.
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'event') eventName = value;
    else if (field === 'data') dataLines.push(value);
    // `id` and `retry` matter only to EventSource reconnection, which this reader never does.
  }

  function drainLines(atEnd: boolean) {
    for (;;) {
      const match = /\r\n|\r|\n/.exec(buffer);
      if (!match) break;
      // A lone `\r` at the very end may be the first half of `\r\n`: wait for the next chunk.
      if (match[0] === '\r' && match.index === buffer.length - 1 && !atEnd) break;
      processLine(buffer.slice(0, match.index));
      buffer = buffer.slice(match.index + match[0].length);
    }
  }

  return {
    feed(chunk: string) {
      buffer += chunk;
      drainLines(false);
    },
    /** Ends the stream: a last event without its blank line is still dispatched. */
    flush() {
      drainLines(true);
      if (buffer !== '') processLine(buffer);
      buffer = '';
      dispatch();
    },
  };
}
