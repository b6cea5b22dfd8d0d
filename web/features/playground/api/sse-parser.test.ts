import { createSseParser, type ServerSentEvent } from './sse-parser';

function parseAll(chunks: string[]): ServerSentEvent[] {
  const events: ServerSentEvent[] = [];
  const parser = createSseParser((event) => events.push(event));
  for (const chunk of chunks) parser.feed(chunk);
  parser.flush();
  return events;
}

describe('createSseParser', () => {
  it('reads named events, default events and [DONE] in order', () => {
    const text =
      'event: meta\ndata: {"a":1}\n\ndata: {"b":2}\n\ndata: [DONE]\n\nevent: done\ndata: {"c":3}\n\n';
    expect(parseAll([text])).toEqual([
      { event: 'meta', data: '{"a":1}' },
      { event: 'message', data: '{"b":2}' },
      { event: 'message', data: '[DONE]' },
      { event: 'done', data: '{"c":3}' },
    ]);
  });

  it('joins events split anywhere, CRLF split between chunks included', () => {
    const text = 'event: meta\r\ndata: {"a":1}\r\n\r\ndata: hello\r\n\r\n';
    const oneByOne = parseAll(text.split(''));
    expect(oneByOne).toEqual([
      { event: 'meta', data: '{"a":1}' },
      { event: 'message', data: 'hello' },
    ]);
  });

  it('ignores comments, joins multi-line data, and keeps a value without the optional space', () => {
    expect(parseAll([': keep-alive\n\ndata:first\ndata: second\n\n'])).toEqual([
      { event: 'message', data: 'first\nsecond' },
    ]);
  });

  it('dispatches a last event that lacks its blank line when the stream ends', () => {
    expect(parseAll(['data: tail'])).toEqual([{ event: 'message', data: 'tail' }]);
  });

  it('does not dispatch an event name without data', () => {
    expect(parseAll(['event: ping\n\n'])).toEqual([]);
  });
});
