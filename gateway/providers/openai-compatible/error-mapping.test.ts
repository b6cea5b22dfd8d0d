/** Error bodies of the servers behind this kind, and what the engine is told of them. */
import { openAiCompatibleAdapter } from './index';
import { vendorFixtureText } from '../../vendors/fixtures';

const fixture = (name: string) => vendorFixtureText('openai', name);

const { readError } = openAiCompatibleAdapter;

describe('readError', () => {
  it('reads OpenAI’s error object: its message, and its type', () => {
    const text = fixture('openai-error-model-not-found.json');
    const { error } = JSON.parse(text);

    expect(readError(404, text)).toEqual({ message: error.message, type: error.type });
  });

  it('takes a word code as the type when there is no type, and never a numeric one', () => {
    expect(
      readError(429, '{"error":{"message":"Slow down","code":"rate_limit_exceeded"}}'),
    ).toEqual({
      message: 'Slow down',
      type: 'rate_limit_exceeded',
    });
    // OpenRouter: the code is the status.
    expect(readError(402, '{"error":{"code":402,"message":"Insufficient credits"}}')).toEqual({
      message: 'Insufficient credits',
    });
  });

  it('reads an error that is only text (Ollama) and a top-level message (vLLM)', () => {
    expect(
      readError(404, '{"error":"model \\"llama3\\" not found, try pulling it first"}'),
    ).toEqual({
      message: 'model "llama3" not found, try pulling it first',
    });
    expect(
      readError(
        400,
        '{"object":"error","message":"max_tokens is too large","type":"BadRequestError","code":400}',
      ),
    ).toEqual({ message: 'max_tokens is too large', type: 'BadRequestError' });
  });

  it('describes an HTML page by its status and title', () => {
    const html =
      '<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n';

    const read = readError(502, html);

    expect(read.message).toContain('HTTP 502');
    expect(read.message).toContain('502 Bad Gateway');
    expect(read.message).not.toContain('<');
    expect(read.type).toBeUndefined();
  });

  it('says the status when the body is empty, and passes plain text on', () => {
    expect(readError(503, '').message).toContain('HTTP 503');
    expect(readError(503, '  \n').message).toContain('HTTP 503');
    expect(readError(500, 'Internal Server Error')).toEqual({ message: 'Internal Server Error' });
  });
});
