import { generateKey } from './keys/key-material';
import { createLogger, loggablePath } from './logger';

describe('loggablePath', () => {
  const key = generateKey();
  it.each([
    ['/v1/models', '/v1/models'],
    ['/v1/models?a=1&b=two', '/v1/models?a=1&b=two'],
    [`/v1/balance?key=${key}`, '/v1/balance?key=[redacted]'],
    [`/v1/generation?id=abc&key=${key}`, '/v1/generation?key=[redacted]&id=abc'],
    [`/v1/x?key=${key}&key=${key}`, '/v1/x?key=[redacted]'],
    ['/v1/x?key=', '/v1/x?key=[redacted]'],
  ])('writes %s as %s', (path, expected) => {
    const logged = loggablePath(new URL(path, 'http://gateway.invalid'));
    expect(logged).toBe(expected);
    expect(logged).not.toContain(key);
  });
});

describe('createLogger', () => {
  it('writes JSON lines with the service name, at the level asked', () => {
    const lines: string[] = [];
    const logger = createLogger('warn', { write: (line: string) => void lines.push(line) });
    logger.info('not shown');
    logger.warn({ cfRay: 'x' }, 'shown');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ service: 'gateway', cfRay: 'x', msg: 'shown' });
  });
});
