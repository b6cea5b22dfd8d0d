import { describe, expect, it } from 'vitest';
import { Router, type RouteHandler } from './router';

const models: RouteHandler = () => undefined;
const endpoints: RouteHandler = () => undefined;
const rotate: RouteHandler = () => undefined;

const router = new Router()
  .add('GET', '/v1/models', models, ['listModels'])
  .add('GET', /^\/v1\/models\/(?<id>[^/]+)\/endpoints$/, endpoints, ['listModelEndpoints'])
  .add('POST', /^\/v1\/keys\/(?<id>[^/]+)\/rotate$/, rotate);

describe('the router', () => {
  it('answers HEAD wherever it answers GET, on exact paths and patterns alike', () => {
    expect(router.match('HEAD', '/v1/models')).toEqual({
      handler: models,
      operationIds: ['listModels'],
      params: {},
    });
    expect(router.match('HEAD', '/v1/models/sim%2Fecho/endpoints')).toEqual({
      handler: endpoints,
      operationIds: ['listModelEndpoints'],
      params: { id: 'sim%2Fecho' },
    });
    expect(router.allowedMethods('/v1/models/x/endpoints')).toEqual(['GET', 'HEAD']);
  });

  it('tells a wrong method from an unknown path', () => {
    expect(router.match('HEAD', '/v1/keys/k/rotate')).toBe('wrong_method');
    expect(router.match('GET', '/v1/keys/k/rotate')).toBe('wrong_method');
    expect(router.match('POST', '/v1/models')).toBe('wrong_method');
    expect(router.match('GET', '/v1/nothing')).toBeNull();
    expect(router.allowedMethods('/v1/keys/k/rotate')).toEqual(['POST']);
  });
});
