/**
 * The pinned Gemini CLI (`gemini -p`) against a gateway on loopback: to a simulated model, and to
 * a fake upstream of each vendor kind through one round of tool use (the upstream asks to read a
 * file of the workspace, the CLI reads it, and the final answer arrives). It sends `topK` and
 * `thinkingConfig` on every request: another kind drops them and says so. What it sent is
 * compared with the recorded fixture; `UPDATE_AGENT_FIXTURES=1` adds a checked new field.
 */
import path from 'node:path';
import { KIND_PROVIDERS } from '../upstreams/kind-upstreams';
import { UPSTREAM_KINDS } from '../upstreams/upstream-kit';
import {
  diffWithFixture,
  expectThinkingKept,
  GEMINI_BIN,
  newWorkspace,
  RUN_TIMEOUT_MS,
  runAgent,
  startKindsGateway,
  type KindsGateway,
  type SentRequest,
  THOUGHT,
} from './agent-kit';
import { textReply, toolCallReply } from './vendor-replies';
import { vendorFixturePath } from '../../gateway/vendors/fixtures';

const SECRET = 'the secret word is marmalade';
const FIXTURE = vendorFixturePath('gemini', 'gemini-cli-requests.json');

/**
 * The CLI's own settings: an API key as the way in (it asks interactively otherwise), and no
 * usage statistics sent anywhere.
 */
const SETTINGS = JSON.stringify({
  security: { auth: { selectedType: 'gemini-api-key' } },
  privacy: { usageStatisticsEnabled: false },
  telemetry: { enabled: false },
});

let agents: KindsGateway;

beforeAll(async () => {
  agents = await startKindsGateway();
});
afterAll(async () => {
  await agents?.close();
});

function gemini(model: string, prompt: string, workspace: string) {
  return runAgent({
    bin: GEMINI_BIN,
    args: ['-p', prompt, '-m', model],
    environment: {
      GOOGLE_GEMINI_BASE_URL: agents.proxy.url,
      GEMINI_API_KEY: agents.key,
      // A fresh workspace is untrusted by default, and an untrusted one runs no tools.
      GEMINI_CLI_TRUST_WORKSPACE: 'true',
    },
    homeFiles: { '.gemini/settings.json': SETTINGS },
    workspace,
    files: { 'notes.txt': `${SECRET}\n` },
  });
}

function expectKnownFields(sent: SentRequest[], model: string) {
  const generations = sent.filter((request) => request.path.includes('GenerateContent'));
  expect(generations.length).toBeGreaterThan(0);
  for (const request of generations) {
    expect(request.path).toBe(`/v1beta/models/${model}:streamGenerateContent?alt=sse`);
  }
  expect(diffWithFixture(FIXTURE, generations)).toEqual([]);
}

it(
  'answers through a simulated model',
  async () => {
    const { result, sent } = await agents.proxy.during(() =>
      gemini('sim/chat-standard', 'Say hi.', newWorkspace()),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).not.toBe('');
    expectKnownFields(sent, 'sim/chat-standard');
  },
  RUN_TIMEOUT_MS * 2,
);

describe.each(UPSTREAM_KINDS)('to a %s upstream', (kind) => {
  it(
    'reads a file when the model asks, and prints the final answer',
    async () => {
      const workspace = newWorkspace();
      const file = path.join(workspace, 'notes.txt');
      const before = agents.fakes[kind].requests.length;
      agents.fakes[kind].reply(
        toolCallReply(kind, { id: 'call_agent_1', name: 'read_file', args: { file_path: file } }),
        textReply(kind, 'The file says marmalade.'),
      );
      const { model } = KIND_PROVIDERS[kind];
      const { result, sent } = await agents.proxy.during(() =>
        gemini(model, 'What does notes.txt say?', workspace),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('The file says marmalade.');
      const upstream = agents.fakes[kind].requests.slice(before);
      expect(upstream).toHaveLength(2);
      expect(JSON.stringify(upstream[1]!.body)).toContain(SECRET);
      // The id the upstream gave the call (the answer's functionCall.id) comes back on the call
      // and on its result, where a Gemini upstream, which gave none, needs none.
      if (kind !== 'gemini')
        expect(JSON.stringify(upstream[1]!.body).match(/"call_agent_1"/g)).toHaveLength(2);
      // Its sampling extras reach Gemini; elsewhere they are dropped, never sent.
      const first = JSON.stringify(upstream[0]!.body);
      const dropped = sent.find((request) => request.path.includes('GenerateContent'))!
        .answerHeaders?.['x-gateway-dropped-params'];
      if (kind === 'gemini') {
        expect(first).toContain('"topK"');
        expect(dropped).toBeUndefined();
      } else {
        expect(first).not.toMatch(/topK|top_k|thinkingConfig/);
        expect(dropped).toBe('generationConfig.topK,generationConfig.thinkingConfig');
      }
      expectKnownFields(sent, model);
    },
    RUN_TIMEOUT_MS * 2,
  );
});

it(
  'keeps thinking through a tool round to an Anthropic upstream that keeps its rules',
  async () => {
    const workspace = newWorkspace();
    const { fake, model } = agents.thinking;
    const before = fake.requests.length;
    fake.reply(
      toolCallReply(
        'anthropic',
        {
          id: 'toolu_agent_2',
          name: 'read_file',
          args: { file_path: path.join(workspace, 'notes.txt') },
        },
        THOUGHT,
      ),
      textReply('anthropic', 'The file says marmalade.'),
    );
    const result = await gemini(model, 'What does notes.txt say?', workspace);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The file says marmalade.');
    expectThinkingKept(fake.requests.slice(before));
  },
  RUN_TIMEOUT_MS * 2,
);
