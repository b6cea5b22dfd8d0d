import { checkBatchText, uploadTooLarge } from './batch-file';

describe('checkBatchText', () => {
  it('counts the requests, blank lines and CRLF endings aside', () => {
    expect(checkBatchText('a.jsonl', '{"custom_id":"a"}\r\n\r\n{"custom_id":"b"}')).toEqual({
      ok: true,
      text: '{"custom_id":"a"}\r\n\r\n{"custom_id":"b"}',
      lines: 2,
    });
  });

  it.each([
    ['', '“a.jsonl” is empty: a batch file has one JSON request a line.'],
    [
      '{}\n[1, 2]\n',
      'Line 2 of “a.jsonl” is not a JSON object: each line is one request, {"custom_id", "method", "url", "body"}.',
    ],
    [
      `{"a":"${'x'.repeat(1024 * 1024)}"}`,
      'Line 1 of “a.jsonl” is over 1.0 MiB, the most one line of a batch may be.',
    ],
  ])('refuses %#', (text, error) => {
    expect(checkBatchText('a.jsonl', text)).toEqual({ ok: false, error });
  });
});

describe('uploadTooLarge', () => {
  it('counts what JSON escapes add to the file', () => {
    // 5 MiB of quotes is 10 MiB once escaped in the JSON body.
    const content = '"'.repeat(5 * 1024 * 1024);
    expect(uploadTooLarge('q.jsonl', { content })).toMatch(/^“q\.jsonl” is 10\.0 MiB as sent;/);
    expect(uploadTooLarge('q.jsonl', { content: 'x'.repeat(1024) })).toBeNull();
  });
});
