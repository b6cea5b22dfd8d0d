import { describe, expect, it } from 'vitest';
import { apiErrorSchema } from '../../contract/workbench-api';
import { adviceForStatus, gatewayErrorFailure } from './errors';
import {
  balanceBody,
  defaultHandler,
  sendJson,
  startFakeGateway,
} from '../test-support/fake-gateway';
import { fakeKey, postJson, rawRequest, startTestBff } from '../test-support/harness';

describe('advice for a gateway refusal', () => {
  it('names the precise cause when the gateway sent its error type', () => {
    const failure = gatewayErrorFailure(
      402,
      { error: 'This key is disabled.', type: 'key_disabled', stage: 'authentication' },
      null,
      [],
    );
    expect(failure.detail.advice).toMatch(/^The key is disabled\..*Do not retry unchanged\.$/);
    expect(adviceForStatus(402, 'insufficient_balance')).toMatch(/Lower max_tokens/);
  });

  it('falls back to the generic advice for the status when the type is unknown or missing', () => {
    expect(adviceForStatus(402, 'something_new')).toBe(adviceForStatus(402));
    expect(gatewayErrorFailure(402, { error: 'no' }, null, []).detail.advice).toMatch(
      /expired, disabled, depleted/,
    );
  });
});

describe('advice that fits the model and the key', () => {
  it('a depleted key is not told a cheaper or :free model helps, on any model', () => {
    const onFree = adviceForStatus(402, 'key_depleted', { model: 'sim/chat-standard:free' });
    expect(onFree).not.toMatch(/pick a cheaper/i);
    expect(onFree).toMatch(/:free ones included/);
    expect(onFree).toMatch(/raise the key's limit or recharge it/);
    const onPaid = adviceForStatus(402, 'key_depleted', { model: 'sim/chat-standard' });
    expect(onPaid).toMatch(/a cheaper or :free model does not help/);
  });

  it('a shared child is told it is its parent’s balance', () => {
    expect(
      adviceForStatus(402, 'key_depleted', { model: 'a/b', identity: 'shared_child' }),
    ).toMatch(
      /^The parent key's balance, which this shared child key spends, is used up.*raise the parent key's limit/,
    );
  });

  it('a request the key cannot afford is told to pick a cheaper model only when it is not :free', () => {
    expect(adviceForStatus(402, 'insufficient_balance', { model: 'a/b' })).toMatch(
      /pick a cheaper or :free model/,
    );
    expect(adviceForStatus(402, 'insufficient_balance', { model: 'a/b:free' })).not.toMatch(
      /cheaper/,
    );
  });
});

describe('advice on a refused chat, through the BFF', () => {
  it('fits the request’s model and the profile’s key kind', async () => {
    const gateway = await startFakeGateway((request, response) => {
      const path = request.url.split('?')[0];
      if (path === '/v1/chat/completions') {
        return sendJson(response, 402, {
          error: "The parent key's balance is used up (remaining_usd is 0).",
          type: 'key_depleted',
          stage: 'admission',
        });
      }
      if (path === '/v1/balance')
        return sendJson(response, 200, balanceBody({ identity: 'shared_child' }));
      defaultHandler(request, response);
    });
    const bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { child: fakeKey() },
    });
    try {
      // The Keys page has looked at the key once, so the BFF knows it is a shared child.
      await rawRequest(bff, { path: '/api/profiles' });
      // Streamed: a refusal before the stream starts is the BFF's own error (a whole answer's
      // error body is passed on inside the chat result).
      const response = await postJson(bff, '/api/chat', {
        profile: 'child',
        request: {
          model: 'sim/echo:free',
          messages: [{ role: 'user', content: 'Hi' }],
          stream: true,
        },
      });
      expect(response.status).toBe(402);
      const error = apiErrorSchema.parse(response.json()).error;
      expect(error.type).toBe('key_depleted');
      expect(error.advice).toMatch(/^The parent key's balance/);
      expect(error.advice).toMatch(/:free ones included/);
      expect(error.advice).not.toMatch(/pick a cheaper/i);
    } finally {
      await bff.close();
      await gateway.close();
    }
  });
});
