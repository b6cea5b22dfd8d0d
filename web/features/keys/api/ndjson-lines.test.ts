import { parseRotationLine } from './rotate-child-key';
import { readLines } from './ndjson-lines';

function streamOf(chunks: Uint8Array[]): ReadableStream<Uint8Array> {
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk);
      controller.close();
    },
  });
}

async function collect(stream: ReadableStream<Uint8Array>): Promise<string[]> {
  const lines: string[] = [];
  for await (const line of readLines(stream)) lines.push(line);
  return lines;
}

describe('readLines', () => {
  it('yields whole lines across chunk boundaries, split characters included', async () => {
    const bytes = new TextEncoder().encode('{"a":"é"}\r\n\n{"b":2}\n{"c":3}');
    // Cut inside the two-byte "é" and inside the second line.
    const chunks = [bytes.slice(0, 8), bytes.slice(8, 16), bytes.slice(16)];
    expect(await collect(streamOf(chunks))).toEqual(['{"a":"é"}', '{"b":2}', '{"c":3}']);
  });
});

describe('parseRotationLine', () => {
  it('reads step and done lines, and keeps anything else as unreadable text', () => {
    expect(
      parseRotationLine('{"step":2,"name":"update_profile","status":"done","detail":"ok"}'),
    ).toEqual({
      type: 'line',
      line: { step: 2, name: 'update_profile', status: 'done', detail: 'ok' },
    });
    expect(parseRotationLine('{"step":9}')).toEqual({ type: 'unreadable', text: '{"step":9}' });
    expect(parseRotationLine('oops')).toEqual({ type: 'unreadable', text: 'oops' });
  });
});
