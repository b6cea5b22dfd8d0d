import { GatewayError, invalidRequest, notFound, toGatewayError } from './errors';
import { generateKey } from './keys/key-material';
import { maskKey } from './shared/key-masking';

describe('GatewayError', () => {
  it('never carries a key in its message or stack, whatever it quotes', () => {
    const key = generateKey();
    const masked = maskKey(key);
    const errors = [
      new GatewayError({
        status: 404,
        type: 'model_not_found',
        stage: 'validation',
        message: `The model '${key}' is not in the catalog.`,
      }),
      notFound(`No route GET /v1/${key}. The API's routes are under /v1.`),
      notFound(`No generation record ${key.slice(0, 64)} is visible to this key.`),
      invalidRequest(`Invalid field 'model': '${key}'`),
      notFound(`No route GET /v1/%73k-${key.slice(3)}.`),
    ];
    for (const error of errors) {
      expect(error.message).not.toContain(key.slice(3));
      expect(error.message).toContain(masked);
      expect(error.stack).not.toContain(key.slice(3));
      expect(toGatewayError(error)).toBe(error);
    }
    expect(errors[0]!.message).toBe(`The model '${masked}' is not in the catalog.`);
  });

  it('leaves a message without a key as written', () => {
    const message =
      "The API key does not start with 'sk-'. Send it as 'Authorization: Bearer sk-…'.";
    expect(
      new GatewayError({
        status: 401,
        type: 'authentication_error',
        stage: 'authentication',
        message,
      }).message,
    ).toBe(message);
  });
});
