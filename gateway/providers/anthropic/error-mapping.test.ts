/** Reading the vendor's error bodies, whatever actually arrives. */
import { anthropicAdapter } from './index';
import { readFixture } from '../../../testing/providers/anthropic-kit';

const { readError } = anthropicAdapter;

describe('an error body', () => {
  it('gives the vendor’s message and type', () => {
    expect(readError(404, readFixture('anthropic-error-not-found.json'))).toEqual({
      message: 'The requested resource could not be found.',
      type: 'not_found_error',
    });
  });

  it('gives no message for an HTML page or an empty body, so the status speaks', () => {
    const html =
      '<html><head><title>502 Bad Gateway</title></head><body><center>nginx</center></body></html>';
    expect(readError(502, html)).toEqual({ message: '' });
    expect(readError(502, '<!DOCTYPE html><p>oops')).toEqual({ message: '' });
    expect(readError(500, '')).toEqual({ message: '' });
  });

  it('passes plain text on, and ignores JSON of another shape', () => {
    expect(readError(503, 'upstream connect error\n')).toEqual({
      message: 'upstream connect error',
    });
    expect(readError(500, '{"detail":"nope"}')).toEqual({ message: '' });
    expect(readError(429, '{"error":{"type":"rate_limit_error"}}')).toEqual({
      message: '',
      type: 'rate_limit_error',
    });
  });
});
