/** Gemini error answers (recorded) → the message and status name the engine reports. */
import { geminiAdapter } from './index';
import { fixtureJson, fixtureText } from '../../../testing/providers/gemini-kit';

describe('Gemini error answers', () => {
  it.each([
    [400, 'gemini-error-invalid-argument.json'],
    [429, 'gemini-error-resource-exhausted.json'],
  ])('reads the %i body’s message and status', (status, name) => {
    const recorded = fixtureJson(name).error!;
    expect(geminiAdapter.readError(status, fixtureText(name))).toEqual({
      message: recorded.message,
      type: recorded.status,
    });
  });

  it('reads an error wrapped in a JSON array, as the array-framed stream sends it', () => {
    const recorded = fixtureJson('gemini-error-resource-exhausted.json');
    expect(geminiAdapter.readError(429, JSON.stringify([recorded]))).toEqual({
      message: recorded.error!.message,
      type: recorded.error!.status,
    });
  });

  it('reads the title of an HTML error page, and nothing of an empty body', () => {
    const html =
      '<!DOCTYPE html>\n<html lang=en><meta charset=utf-8><title>Error 404 (Not Found)!!1</title><style>*{margin:0}</style><p>The requested URL was not found on this server.';
    expect(geminiAdapter.readError(404, html)).toEqual({ message: 'Error 404 (Not Found)!!1' });
    expect(geminiAdapter.readError(502, '')).toEqual({ message: '' });
    expect(geminiAdapter.readError(502, '  \n')).toEqual({ message: '' });
  });

  it('passes plain text and JSON of another shape on as text, for the engine to clean', () => {
    expect(geminiAdapter.readError(503, 'upstream connect error')).toEqual({
      message: 'upstream connect error',
    });
    expect(geminiAdapter.readError(500, '{"detail":"oops"}')).toEqual({
      message: '{"detail":"oops"}',
    });
  });
});
