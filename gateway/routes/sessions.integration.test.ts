/**
 * Agent sessions: the session a coding agent names on each request (Claude Code's
 * `X-Claude-Code-Session-Id`, Codex's `session_id`…) is on the request's record, filters the
 * listing, and groups the key's activity: each session's requests, time, tokens, cache hits, cost.
 */
import { randomUUID } from 'node:crypto';
import {
  generationListSchema,
  generationRecordSchema,
  sessionActivitySchema,
  type GenerationRecord,
} from '../../contract/gateway';
import { claudeCodeSession, sessionRequest } from '../../testing/upstreams/agent-session';
import { callForm, helloIn, readFormAnswer } from '../../testing/upstreams/public-forms';
import {
  getWithKey,
  startTestGateway,
  toNanos,
  type TestGateway,
} from '../../testing/gateway-support';

const MODEL = 'sim/chat-standard';
let gateway: TestGateway;
let key: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  key = (await gateway.createKey({ kind: 'account', limitUsd: 10 })).key;
});
afterAll(async () => {
  await gateway?.stop();
});

/** One Claude Code run of `turns` turns (its recorded requests) under its own session id. */
async function claudeCodeRun(sessionId: string, turns: number): Promise<string[]> {
  const session = claudeCodeSession(turns);
  const rays: string[] = [];
  for (let turn = 0; turn < turns; turn += 1) {
    const body = sessionRequest('messages', session, turn, {
      model: MODEL,
      breakpoints: true,
      maxTokens: 256,
    });
    const { model: _model, stream: _stream, ...rest } = body;
    const response = await callForm('messages', gateway.url, key, MODEL, rest, {
      stream: true,
      headers: { 'X-Claude-Code-Session-Id': sessionId },
    });
    await readFormAnswer('messages', response, true);
    rays.push(response.headers.get('cf-ray')!);
  }
  return rays;
}

async function sessionRecords(sessionId: string): Promise<GenerationRecord[]> {
  const response = await getWithKey(
    `${gateway.url}/v1/generations?session_id=${encodeURIComponent(sessionId)}&limit=200`,
    key,
  );
  expect(response.status).toBe(200);
  return generationListSchema.parse(await response.json()).data;
}

describe('agent sessions', () => {
  it('groups two Claude Code runs into two sessions, each with its requests and total cost', async () => {
    const first = `cc-${randomUUID()}`;
    const second = `cc-${randomUUID()}`;
    const firstRays = await claudeCodeRun(first, 3);
    const secondRays = await claudeCodeRun(second, 2);
    // A request naming no session belongs to none.
    const plain = await callForm('messages', gateway.url, key, MODEL, helloIn('messages'));
    await readFormAnswer('messages', plain, false);

    const record = await getWithKey(`${gateway.url}/v1/generation?id=${firstRays[0]}`, key);
    expect(generationRecordSchema.parse(await record.json()).session_id).toBe(first);
    const none = await getWithKey(
      `${gateway.url}/v1/generation?id=${plain.headers.get('cf-ray')}`,
      key,
    );
    expect(generationRecordSchema.parse(await none.json()).session_id).toBeNull();

    const listed = { [first]: await sessionRecords(first), [second]: await sessionRecords(second) };
    expect(listed[first]!.map((row) => row.id).sort()).toEqual([...firstRays].sort());
    expect(listed[second]!.map((row) => row.id).sort()).toEqual([...secondRays].sort());

    const response = await getWithKey(`${gateway.url}/v1/activity/sessions?days=1`, key);
    expect(response.status).toBe(200);
    const sessions = sessionActivitySchema.parse(await response.json()).data;
    // The latest active first; the request without a session is in none.
    expect(sessions.map((session) => session.session_id)).toEqual([second, first]);
    for (const session of sessions) {
      const records = listed[session.session_id]!;
      const sum = (pick: (row: GenerationRecord) => number) =>
        records.reduce((total, row) => total + pick(row), 0);
      expect(session).toMatchObject({
        requests: records.length,
        prompt_tokens: sum((row) => row.prompt_tokens),
        completion_tokens: sum((row) => row.completion_tokens),
        cache_read_tokens: sum((row) => row.cache_read_tokens ?? 0),
        cache_hits: records.filter((row) => (row.cache_read_tokens ?? 0) > 0).length,
      });
      expect(toNanos(session.cost_usd)).toBe(sum((row) => toNanos(row.cost_usd)));
      expect(session.cost_usd).toBeGreaterThan(0);
      expect(session.ended_at).toBeGreaterThanOrEqual(session.started_at);
      expect(session.duration_seconds).toBe(session.ended_at - session.started_at);
    }
  });

  it.each([
    ['Codex', 'session_id'],
    ['OpenCode', 'x-session-affinity'],
    ['a client of the common convention', 'X-Session-Id'],
  ])('takes the session %s names in %s', async (_client, header) => {
    const sessionId = randomUUID();
    const response = await callForm('responses', gateway.url, key, MODEL, helloIn('responses'), {
      headers: { [header]: sessionId },
    });
    await readFormAnswer('responses', response, false);
    expect((await sessionRecords(sessionId)).map((row) => row.id)).toEqual([
      response.headers.get('cf-ray'),
    ]);
  });

  it('refuses a session id too long to be one, naming the header', async () => {
    const response = await callForm(
      'chat_completions',
      gateway.url,
      key,
      MODEL,
      helloIn('chat_completions'),
      {
        headers: { 'x-claude-code-session-id': 'x'.repeat(201) },
      },
    );
    expect(response.status).toBe(400);
    expect(await response.text()).toContain(
      "Header 'x-claude-code-session-id' is 201 characters long",
    );
  });
});
