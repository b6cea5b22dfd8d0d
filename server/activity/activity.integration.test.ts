/** `GET /api/generations` and `GET /api/activity`: the Activity page's reads, with the profile's key. */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  activityViewSchema,
  agentSessionsViewSchema,
  batchesViewSchema,
  apiErrorSchema,
  generationsPageSchema,
} from '../../contract/workbench-api';
import { usageOf } from '../../contract/generation-record';
import {
  batchBody,
  cfRayOf,
  defaultHandler,
  sendJson,
  startFakeGateway,
  type FakeGateway,
} from '../test-support/fake-gateway';
import { fakeKey, rawRequest, startTestBff, type TestBff } from '../test-support/harness';

function record(index: number, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    object: 'generation',
    id: cfRayOf(index),
    model: 'sim/echo',
    provider: 'primary',
    upstream_model: 'echo',
    form: 'chat_completions',
    streamed: true,
    prompt_tokens: 11,
    completion_tokens: 98,
    cost_usd: 0.000305,
    finish_reason: 'stop',
    outcome: 'completed',
    settlement: 'settled',
    created_at: 1_800_000_000 - index,
    settled_at: 1_800_000_010,
    latency_ms: 40.5,
    attempts: [
      { provider: 'backup', status: 'connect', latency_ms: 3 },
      { provider: 'primary', status: 200, latency_ms: 30 },
    ],
    usage_estimated: false,
    charge_capped: false,
    child: null,
    a_field_added_later: true,
    ...overrides,
  };
}

function activityBody(): Record<string, unknown> {
  const figures = (requests: number, cost: number) => ({
    requests,
    prompt_tokens: requests * 10,
    completion_tokens: requests * 5,
    cost_usd: cost,
  });
  return {
    object: 'activity',
    days: 2,
    from: '2026-11-21',
    to: '2026-11-22',
    data: [
      { date: '2026-11-21', ...figures(0, 0), models: [] },
      {
        date: '2026-11-22',
        ...figures(3, 0.000123457),
        models: [
          { model: 'sim/echo', ...figures(2, 0.000123), extra: 1 },
          { model: 'sim/echo-mini', ...figures(1, 0.000000457) },
        ],
      },
    ],
    totals: figures(3, 0.000123457),
  };
}

describe('the Activity routes', () => {
  const key = fakeKey();
  const childKey = fakeKey();
  let gateway: FakeGateway;
  let bff: TestBff;

  beforeAll(async () => {
    gateway = await startFakeGateway();
    bff = await startTestBff({
      gatewayBaseUrl: gateway.baseUrl,
      profiles: { main: key, child: childKey },
    });
  });
  beforeEach(() => {
    gateway.requests.length = 0;
    bff.logLines.length = 0;
    gateway.setHandler((request, response) => {
      const path = request.url.split('?')[0];
      if (path === '/v1/generations') {
        return sendJson(
          response,
          200,
          {
            object: 'list',
            data: [
              record(1),
              // A gateway that forgot to mask the child's key: the BFF masks it.
              record(2, {
                child: { id: 'key_child', name: 'ci', key: childKey },
                translation: { dropped: ['top_k'], adjusted: ['max_tokens=32000->8192'] },
              }),
            ],
            has_more: true,
            next_cursor: 'WzE4MDAwMDAwMDAsMTJd',
          },
          cfRayOf(77),
        );
      }
      if (path === '/v1/activity') return sendJson(response, 200, activityBody());
      return defaultHandler(request, response);
    });
  });
  afterAll(async () => {
    await bff.close();
    await gateway.close();
  });

  describe('GET /api/generations', () => {
    it('reads a page with the profile’s key and passes on the rows and the cursor', async () => {
      const response = await rawRequest(bff, { path: '/api/generations?profile=main' });
      expect(response.status).toBe(200);
      const page = generationsPageSchema.parse(response.json());
      expect(page.profile).toBe('main');
      expect(page.next_cursor).toBe('WzE4MDAwMDAwMDAsMTJd');
      expect(page.data).toHaveLength(2);
      expect(page.data[0]).toEqual({
        id: cfRayOf(1),
        created_at: 1_799_999_999,
        model: 'sim/echo',
        provider: 'primary',
        form: 'chat_completions',
        streamed: true,
        prompt_tokens: 11,
        completion_tokens: 98,
        cost_usd: 0.000305,
        latency_ms: 40.5,
        outcome: 'completed',
        finish_reason: 'stop',
        settlement: 'settled',
        usage_estimated: false,
        charge_capped: false,
        attempts: [
          { provider: 'backup', status: 'connect', latency_ms: 3 },
          { provider: 'primary', status: 200, latency_ms: 30 },
        ],
        upstream_model: 'echo',
        requested_model: null,
        ...usageOf({}),
        settled_at: 1_800_000_010,
        translation: null,
        session_id: null,
        batch_id: null,
        child: null,
      });
      // What the gateway dropped or changed reaches the table as the record has it.
      expect(page.data[1]?.translation).toEqual({
        dropped: ['top_k'],
        adjusted: ['max_tokens=32000->8192'],
      });
      expect(page.data[1]?.child).toMatchObject({ id: 'key_child', name: 'ci' });
      expect(page.data[1]?.child?.masked_key).toMatch(/^sk-.{4}….{4}$/);
      expect(response.text).not.toContain(childKey);
      expect(response.text).not.toContain(key);
      expect(response.text).not.toContain('a_field_added_later');

      expect(gateway.requests).toHaveLength(1);
      expect(gateway.requests[0]?.url).toBe('/v1/generations?limit=50');
      expect(gateway.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
      // The request's log line carries the gateway's trace id, and no key.
      const logged = bff.logLines.join('');
      expect(logged).toContain(cfRayOf(77));
      expect(logged).not.toContain(key);
      expect(logged).not.toContain(childKey);
    });

    it('passes every filter on, and nothing else', async () => {
      const response = await rawRequest(bff, {
        path:
          '/api/generations?profile=main&model=sim%2Fecho%3Afree&session_id=ses_1&outcome=ended_early&from=1800000000' +
          '&to=1800086400&key_id=key_abc&limit=200&cursor=WzE4MDAwMDAwMDAsMTJd&extra=1',
      });
      expect(response.status).toBe(200);
      const sent = new URL(gateway.requests[0]!.url, 'http://gateway.test');
      expect(sent.pathname).toBe('/v1/generations');
      expect(Object.fromEntries(sent.searchParams)).toEqual({
        model: 'sim/echo:free',
        session_id: 'ses_1',
        outcome: 'ended_early',
        from: '1800000000',
        to: '1800086400',
        key_id: 'key_abc',
        limit: '200',
        cursor: 'WzE4MDAwMDAwMDAsMTJd',
      });
    });

    it('finds one request by its trace id, or answers an empty page', async () => {
      gateway.setHandler((request, response) => {
        const url = new URL(request.url, 'http://gateway.test');
        if (url.pathname !== '/v1/generation') return defaultHandler(request, response);
        return url.searchParams.get('id') === cfRayOf(5)
          ? sendJson(response, 200, record(5))
          : sendJson(response, 404, { error: { message: 'No such generation', code: 404 } });
      });
      const found = generationsPageSchema.parse(
        (
          await rawRequest(bff, {
            path: `/api/generations?profile=main&model=other&id=${cfRayOf(5)}`,
          })
        ).json(),
      );
      expect(found.data.map((row) => row.id)).toEqual([cfRayOf(5)]);
      expect(found.next_cursor).toBeNull();
      expect(gateway.requests[0]?.url).toBe(`/v1/generation?id=${cfRayOf(5)}`);
      expect(gateway.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);

      const missing = await rawRequest(bff, {
        path: `/api/generations?profile=main&id=${cfRayOf(6)}`,
      });
      expect(missing.status).toBe(200);
      expect(generationsPageSchema.parse(missing.json()).data).toEqual([]);
    });

    it('says the last page is the last: no cursor when the gateway has no more', async () => {
      gateway.setHandler((_request, response) =>
        sendJson(response, 200, {
          object: 'list',
          data: [],
          has_more: false,
          next_cursor: null,
        }),
      );
      const page = generationsPageSchema.parse(
        (await rawRequest(bff, { path: '/api/generations?profile=main' })).json(),
      );
      expect(page).toMatchObject({ data: [], next_cursor: null });
    });

    it.each([
      ['limit=0', 'limit'],
      ['limit=201', 'limit'],
      ['limit=ten', 'limit'],
      ['outcome=failed', 'outcome'],
      ['from=yesterday', 'from'],
      ['from=-5', 'from'],
      ['from=1800000000&to=1800000000', 'to'],
      ['cursor=not%20a%20cursor', 'cursor'],
      ['cursor=a%26key%3Dsk-x', 'cursor'],
      ['key_id=..%2Fkeys', 'key_id'],
      ['model=a&model=b', 'model'],
      ['id=not-a-ray', 'id'],
    ])('refuses %s with a 400 naming %s, without calling the gateway', async (query, field) => {
      const response = await rawRequest(bff, { path: `/api/generations?profile=main&${query}` });
      expect(response.status).toBe(400);
      expect(apiErrorSchema.parse(response.json()).error.field).toBe(field);
      expect(gateway.requests).toHaveLength(0);
    });

    it('names a missing or unknown profile', async () => {
      const missing = await rawRequest(bff, { path: '/api/generations' });
      expect(missing.status).toBe(400);
      expect(apiErrorSchema.parse(missing.json()).error.field).toBe('profile');
      const unknown = await rawRequest(bff, { path: '/api/generations?profile=nobody' });
      expect(unknown.status).toBe(404);
      expect(apiErrorSchema.parse(unknown.json()).error.stage).toBe('profile');
    });

    it('passes the gateway’s refusal on with its status, trace id and advice', async () => {
      gateway.setHandler((_request, response) =>
        sendJson(
          response,
          404,
          {
            error: 'No key key_zzz is visible to this key (key_id).',
            type: 'not_found',
          },
          cfRayOf(404),
        ),
      );
      const response = await rawRequest(bff, {
        path: '/api/generations?profile=main&key_id=key_zzz',
      });
      expect(response.status).toBe(404);
      const { error } = apiErrorSchema.parse(response.json());
      expect(error).toMatchObject({ upstream_status: 404, cf_ray: cfRayOf(404) });
      expect(error.message).toContain('key_zzz');
    });

    it('says so when the gateway answers something that is not a list of records', async () => {
      gateway.setHandler((_request, response) =>
        sendJson(response, 200, { object: 'list', data: [{ id: 'x' }], has_more: false }),
      );
      const response = await rawRequest(bff, { path: '/api/generations?profile=main' });
      expect(response.status).toBe(502);
      expect(apiErrorSchema.parse(response.json()).error.stage).toBe('gateway');
    });

    it('reports a gateway that is down with its stage', async () => {
      const down = await startFakeGateway();
      await down.close();
      const lonely = await startTestBff({
        gatewayBaseUrl: down.baseUrl,
        profiles: { main: key },
      });
      try {
        const response = await rawRequest(lonely, { path: '/api/generations?profile=main' });
        expect(response.status).toBe(502);
        expect(apiErrorSchema.parse(response.json()).error.stage).toBe('connect');
      } finally {
        await lonely.close();
      }
    });
  });

  describe('GET /api/activity', () => {
    it('reads the days with the profile’s key, every day and model as the gateway counted them', async () => {
      const response = await rawRequest(bff, { path: '/api/activity?profile=main&days=2' });
      expect(response.status).toBe(200);
      const view = activityViewSchema.parse(response.json());
      expect(view).toMatchObject({
        profile: 'main',
        days: 2,
        from: '2026-11-21',
        to: '2026-11-22',
        totals: { requests: 3, cost_usd: 0.000123457 },
      });
      expect(view.data.map((day) => day.date)).toEqual(['2026-11-21', '2026-11-22']);
      expect(view.data[1]?.models).toEqual([
        {
          model: 'sim/echo',
          requests: 2,
          prompt_tokens: 20,
          completion_tokens: 10,
          cost_usd: 0.000123,
        },
        {
          model: 'sim/echo-mini',
          requests: 1,
          prompt_tokens: 10,
          completion_tokens: 5,
          cost_usd: 0.000000457,
        },
      ]);
      expect(response.text).not.toContain('extra');
      expect(gateway.requests[0]?.url).toBe('/v1/activity?days=2');
      expect(gateway.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    });

    it('asks for 30 days by default, and passes key_id on', async () => {
      await rawRequest(bff, { path: '/api/activity?profile=child' });
      await rawRequest(bff, { path: '/api/activity?profile=main&key_id=key_child' });
      expect(gateway.requests.map((request) => request.url)).toEqual([
        '/v1/activity?days=30',
        '/v1/activity?days=30&key_id=key_child',
      ]);
      expect(gateway.requests[0]?.headers.authorization).toBe(`Bearer ${childKey}`);
    });

    it.each([['days=0'], ['days=91'], ['days=7.5'], ['days=week']])(
      'refuses %s with a 400 naming days',
      async (query) => {
        const response = await rawRequest(bff, { path: `/api/activity?profile=main&${query}` });
        expect(response.status).toBe(400);
        expect(apiErrorSchema.parse(response.json()).error.field).toBe('days');
        expect(gateway.requests).toHaveLength(0);
      },
    );

    it('says so when the gateway’s answer is not an activity', async () => {
      gateway.setHandler((_request, response) =>
        sendJson(response, 200, { object: 'activity', days: 2 }),
      );
      const response = await rawRequest(bff, { path: '/api/activity?profile=main' });
      expect(response.status).toBe(502);
    });
  });

  describe('GET /api/activity/sessions', () => {
    it('reads the sessions with the profile’s key, passing on only the fields shown', async () => {
      const session = {
        session_id: 'cc-1',
        requests: 3,
        started_at: 1_800_000_000,
        ended_at: 1_800_000_600,
        duration_seconds: 600,
        prompt_tokens: 30,
        completion_tokens: 9,
        cache_read_tokens: 20,
        cache_hits: 2,
        cost_usd: 0.000123457,
      };
      gateway.setHandler((_request, response) =>
        sendJson(response, 200, { object: 'list', days: 7, data: [{ ...session, extra: 1 }] }),
      );
      const response = await rawRequest(bff, {
        path: '/api/activity/sessions?profile=main&days=7&key_id=key_child',
      });
      expect(response.status).toBe(200);
      expect(agentSessionsViewSchema.parse(response.json()).data).toEqual([session]);
      expect(response.text).not.toContain('extra');
      expect(gateway.requests[0]?.url).toBe('/v1/activity/sessions?days=7&key_id=key_child');
      expect(gateway.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    });
  });

  describe('GET /api/activity/batches', () => {
    it('reads the batches with the profile’s key, their progress and cost only', async () => {
      const batch = batchBody({
        request_counts: { total: 10, completed: 4, failed: 1 },
        metadata: { secret_ish: 'not shown' },
        cost_usd: 0.00002,
      });
      gateway.setHandler((_request, response) =>
        sendJson(response, 200, {
          object: 'list',
          data: [batch],
          first_id: 'batch_1',
          last_id: 'batch_1',
          has_more: false,
        }),
      );
      const response = await rawRequest(bff, { path: '/api/activity/batches?profile=main' });
      expect(response.status).toBe(200);
      expect(batchesViewSchema.parse(response.json()).data).toEqual([
        {
          id: 'batch_1',
          endpoint: '/v1/chat/completions',
          status: 'in_progress',
          total: 10,
          completed: 4,
          failed: 1,
          cost_usd: 0.00002,
          created_at: 1_800_000_000,
        },
      ]);
      expect(response.text).not.toContain('not shown');
      expect(gateway.requests[0]?.url).toBe('/v1/batches?limit=20');
      expect(gateway.requests[0]?.headers.authorization).toBe(`Bearer ${key}`);
    });
  });
});
