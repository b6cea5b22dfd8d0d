/**
 * The pinned Claude Code CLI (`claude -p`) against a gateway on loopback: to a simulated model,
 * and to a fake upstream of each vendor kind through one round of tool use (the upstream asks to
 * read a file of the workspace, Claude Code reads it, and the final answer arrives). What it
 * sent is compared with the recorded fixture: a field a new release adds fails here first. Once
 * the Messages form is checked to accept it, `UPDATE_AGENT_FIXTURES=1` adds it to the fixture.
 */
import path from 'node:path';
import type { UpstreamKind } from '../providers/upstream/provider-config';
import { startFakeUpstream, type FakeUpstream } from '../test-kit/fake-upstream';
import { KIND_PROVIDERS } from '../test-kit/kind-upstreams';
import { providersFileFor, UPSTREAM_KINDS } from '../test-kit/upstream-kit';
import { startTestGateway, type TestGateway } from '../testing-support';
import {
  CLAUDE_BIN,
  diffWithFixture,
  newWorkspace,
  runAgent,
  startRecordingProxy,
  type RecordingProxy,
  type SentRequest,
} from './agent-kit';
import { textReply, toolCallReply } from './vendor-replies';

/** Each run is bounded; a CLI that hangs is killed and the test fails on its exit code. */
const RUN_TIMEOUT_MS = 90_000;
const SECRET = 'the secret word is marmalade';

const FIXTURE = path.join(
  import.meta.dirname,
  '..',
  'forms',
  'anthropic',
  '__fixtures__',
  'claude-code-requests.json',
);

let gateway: TestGateway;
let proxy: RecordingProxy;
let key: string;
const fakes = {} as Record<UpstreamKind, FakeUpstream>;

beforeAll(async () => {
  for (const kind of UPSTREAM_KINDS) fakes[kind] = await startFakeUpstream();
  const setup = providersFileFor(
    UPSTREAM_KINDS.map((kind) => ({
      id: KIND_PROVIDERS[kind].provider,
      kind,
      url: fakes[kind].url,
      retry: { max_attempts: 1 },
      models: [
        {
          id: KIND_PROVIDERS[kind].model,
          upstreamModel: KIND_PROVIDERS[kind].upstreamModel,
          prompt: '0.000001',
          completion: '0.000002',
        },
      ],
    })),
    { includeSimulatedModels: true },
  );
  gateway = await startTestGateway({ providers: setup.providers });
  key = (await gateway.createKey({ kind: 'account', limitUsd: 50 })).key;
  proxy = await startRecordingProxy(gateway.url);
});
afterAll(async () => {
  await proxy?.close();
  await gateway?.stop();
  for (const fake of Object.values(fakes)) await fake.close();
});

function claude(model: string, prompt: string, workspace: string) {
  return runAgent({
    bin: CLAUDE_BIN,
    args: ['-p', prompt, '--model', model],
    environment: { ANTHROPIC_BASE_URL: proxy.url, ANTHROPIC_API_KEY: key },
    workspace,
    files: { 'notes.txt': `${SECRET}\n` },
    timeoutMs: RUN_TIMEOUT_MS,
  });
}

/** The requests Claude Code sent during one run. */
async function recorded<T>(run: () => Promise<T>): Promise<{ result: T; sent: SentRequest[] }> {
  const before = proxy.requests.length;
  const result = await run();
  return { result, sent: proxy.requests.slice(before) };
}

function expectKnownFields(sent: SentRequest[]) {
  expect(sent.length).toBeGreaterThan(0);
  for (const request of sent) {
    expect(request.path).toBe('/v1/messages?beta=true');
    expect(request.headers['anthropic-beta']).toEqual(expect.any(String));
  }
  // A field the fixture never had: the Messages form must be checked against it, then the
  // fixture re-recorded.
  expect(diffWithFixture(FIXTURE, sent)).toEqual([]);
}

it(
  'answers through a simulated model',
  async () => {
    const workspace = newWorkspace();
    const { result, sent } = await recorded(() =>
      claude('sim/chat-standard', 'Say hi.', workspace),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).not.toBe('');
    expectKnownFields(sent);
  },
  RUN_TIMEOUT_MS * 2,
);

describe.each(UPSTREAM_KINDS)('to a %s upstream', (kind) => {
  it(
    'reads a file when the model asks, and prints the final answer',
    async () => {
      const workspace = newWorkspace();
      const file = path.join(workspace, 'notes.txt');
      const before = fakes[kind].requests.length;
      fakes[kind].reply(
        toolCallReply(kind, { id: 'toolu_agent_1', name: 'Read', args: { file_path: file } }),
        textReply(kind, 'The file says marmalade.'),
      );
      const { result, sent } = await recorded(() =>
        claude(KIND_PROVIDERS[kind].model, 'What does notes.txt say?', workspace),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('The file says marmalade.');
      // The second upstream request carries the file's text as the tool's result.
      const upstream = fakes[kind].requests.slice(before);
      expect(upstream).toHaveLength(2);
      expect(JSON.stringify(upstream[1]!.body)).toContain(SECRET);
      // Another kind cannot take Claude Code's thinking and betas: dropped, and said so.
      const dropped = sent[0]!.answerHeaders?.['x-gateway-dropped-params'] ?? '';
      if (kind === 'anthropic') expect(dropped).toBe('');
      else expect(dropped.split(',')).toEqual(expect.arrayContaining(['thinking']));
      expectKnownFields(sent);
    },
    RUN_TIMEOUT_MS * 2,
  );
});
