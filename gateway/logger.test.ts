import { generateKey } from './keys/key-material';
import { maskKey } from './shared/key-masking';
import { createLogger, loggablePath } from './logger';

describe('loggablePath', () => {
  const key = generateKey();
  const masked = maskKey(key);
  it.each([
    ['/v1/models', '/v1/models'],
    ['/v1/models?a=1&b=two', '/v1/models?a=1&b=two'],
    [`/v1/balance?key=${key}`, '/v1/balance?key=[redacted]'],
    [`/v1/generation?id=abc&key=${key}`, '/v1/generation?id=abc&key=[redacted]'],
    [`/v1/x?key=${key}&key=${key}`, '/v1/x?key=[redacted]&key=[redacted]'],
    ['/v1/x?key=', '/v1/x?key=[redacted]'],
    ['/v1/x?key=not-a-key&other=1', '/v1/x?key=[redacted]&other=1'],
    // Credential parameters by any case, `[]` suffix or escape: the value goes, whatever it is.
    [`/v1/x?KEY=${key}`, '/v1/x?KEY=[redacted]'],
    [`/v1/x?Key=${key}`, '/v1/x?Key=[redacted]'],
    [`/v1/x?api_key=${key}&a=1`, '/v1/x?api_key=[redacted]&a=1'],
    [`/v1/x?apikey=${key}`, '/v1/x?apikey=[redacted]'],
    [`/v1/x?token=${key}`, '/v1/x?token=[redacted]'],
    [`/v1/x?access_token=${key}`, '/v1/x?access_token=[redacted]'],
    [`/v1/x?key[]=${key}&key[0]=${key}`, '/v1/x?key[]=[redacted]&key[0]=[redacted]'],
    [`/v1/x?%6Bey=${key}`, '/v1/x?%6Bey=[redacted]'],
    ['/v1/x?token=AIzaNotAGatewayKey', '/v1/x?token=[redacted]'],
    // Key-like text anywhere else: masked, the rest kept.
    [`/v1/generation?id=${key}`, `/v1/generation?id=${masked}`],
    [`/v1/${key}`, `/v1/${masked}`],
    [
      `/v1beta/models/${key}:generateContent?alt=sse`,
      `/v1beta/models/${masked}:generateContent?alt=sse`,
    ],
    [`/v1/%73k-${key.slice(3)}`, `/v1/${masked}`],
    [`/v1/x?${key}=1&a=${key}`, `/v1/x?${masked}=1&a=${masked}`],
    ['/v1/x?tokens=12&keys', '/v1/x?tokens=12&keys'],
  ])('writes %s as %s', (path, expected) => {
    const logged = loggablePath(new URL(path, 'http://gateway.invalid'));
    expect(logged).toBe(expected);
    expect(logged).not.toContain(key.slice(3));
  });
});

describe('createLogger', () => {
  function capture(level = 'info') {
    const lines: string[] = [];
    const logger = createLogger(level, { write: (line: string) => void lines.push(line) });
    return {
      logger,
      lines,
      parsed: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
    };
  }

  it('writes JSON lines with the service name, at the level asked', () => {
    const { logger, lines } = capture('warn');
    logger.info('not shown');
    logger.warn({ cfRay: 'x' }, 'shown');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0]!)).toMatchObject({ service: 'gateway', cfRay: 'x', msg: 'shown' });
  });

  it('masks key-like text in every field, at any depth, in names, messages and child bindings', () => {
    const key = generateKey();
    const masked = maskKey(key);
    const { logger, lines, parsed } = capture('debug');
    let deep: Record<string, unknown> = { leaf: `x ${key}` };
    for (let depth = 0; depth < 30; depth += 1) deep = { deeper: deep };
    logger.info({ path: `/v1/${key}`, list: [key, { id: key }], [key]: 1, deep }, `saw ${key}`);
    logger.child({ model: key }).warn('child %s', key);
    logger.error(`formatted: ${key}`);
    logger.debug({ url: `/v1/%73k-${key.slice(3)}` }, 'encoded');

    const text = lines.join('');
    expect(text).not.toContain(key.slice(3));
    expect(text).not.toContain(key.slice(7, -4));
    const [first, child, plain, encoded] = parsed();
    expect(first).toMatchObject({
      path: `/v1/${masked}`,
      list: [masked, { id: masked }],
      [masked]: 1,
      msg: `saw ${masked}`,
    });
    expect(JSON.stringify(first!.deep)).toContain(`x ${masked}`);
    expect(child).toMatchObject({ model: masked, msg: `child ${masked}` });
    expect(plain).toMatchObject({ msg: `formatted: ${masked}` });
    expect(encoded).toMatchObject({ url: `/v1/${masked}` });
  });

  it('keeps error stacks, masked', () => {
    const key = generateKey();
    const { logger, lines, parsed } = capture();
    const error = new Error(`upstream said ${key}`);
    logger.error({ err: error }, 'request failed');
    logger.error(new TypeError(`bad ${key}`));
    expect(lines.join('')).not.toContain(key.slice(3));
    const [withErr, bare] = parsed() as Array<{
      err: { message: string; stack: string };
      msg: string;
    }>;
    expect(withErr!.err.message).toBe(`upstream said ${maskKey(key)}`);
    expect(withErr!.err.stack).toMatch(
      new RegExp(`^Error: upstream said ${maskKey(key)}\\n\\s+at `),
    );
    expect(bare!.err.stack).toContain('logger.test.ts');
    expect(bare!.msg).toBe(`bad ${maskKey(key)}`);
  });

  it('keeps redacting key-bearing fields by name, whatever their value looks like', () => {
    const { logger, lines } = capture();
    logger.info({ key: 'AIza-not-a-gateway-key', headers: { 'x-api-key': 'whatever' } }, 'named');
    expect(JSON.parse(lines[0]!)).toMatchObject({
      key: '[redacted]',
      headers: { 'x-api-key': '[redacted]' },
    });
  });
});
