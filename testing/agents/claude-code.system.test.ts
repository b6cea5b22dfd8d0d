/**
 * The pinned Claude Code CLI (`claude -p`) against a gateway on loopback: to a simulated model,
 * and to a fake upstream of each vendor kind through one round of tool use (the upstream asks to
 * read a file of the workspace, Claude Code reads it, and the final answer arrives). What it
 * sent is compared with the recorded fixture: a field a new release adds fails here first. Once
 * the Messages form is checked to accept it, `UPDATE_AGENT_FIXTURES=1` adds it to the fixture.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startFakeUpstream } from '../upstreams/fake-upstream';
import { KIND_PROVIDERS } from '../upstreams/kind-upstreams';
import { providersFileFor, UPSTREAM_KINDS } from '../upstreams/upstream-kit';
import { startTestGateway } from '../gateway-support';
import {
  AGENT_ALIAS,
  CLAUDE_BIN,
  diffWithFixture,
  expectThinkingKept,
  newWorkspace,
  RUN_TIMEOUT_MS,
  runAgent,
  startKindsGateway,
  startRecordingProxy,
  type KindsGateway,
  type SentRequest,
  THOUGHT,
} from './agent-kit';
import { textReply, toolCallReply } from './vendor-replies';
import { vendorFixturePath } from '../../gateway/vendors/fixtures';

const SECRET = 'the secret word is marmalade';

const FIXTURE = vendorFixturePath('anthropic', 'claude-code-requests.json');

let agents: KindsGateway;

beforeAll(async () => {
  agents = await startKindsGateway();
});
afterAll(async () => {
  await agents?.close();
});

function claude(model: string, prompt: string, workspace: string, extraArgs: string[] = []) {
  return runAgent({
    bin: CLAUDE_BIN,
    args: ['-p', prompt, '--model', model, ...extraArgs],
    environment: { ANTHROPIC_BASE_URL: agents.proxy.url, ANTHROPIC_API_KEY: agents.key },
    workspace,
    files: { 'notes.txt': `${SECRET}\n` },
  });
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
    const { result, sent } = await agents.proxy.during(() =>
      claude('sim/chat-standard', 'Say hi.', workspace),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).not.toBe('');
    expectKnownFields(sent);
  },
  RUN_TIMEOUT_MS * 2,
);

it(
  'answers through an alias (--model team/coder), recorded under the model that answered',
  async () => {
    const workspace = newWorkspace();
    const { result, sent } = await agents.proxy.during(() =>
      claude(AGENT_ALIAS.id, 'Say hi.', workspace),
    );
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout.trim()).not.toBe('');
    const throughAlias = sent.filter((request) => request.body.model === AGENT_ALIAS.id);
    expect(throughAlias.length).toBeGreaterThan(0);
    const answer = throughAlias.at(-1)!.answerHeaders!;
    expect(answer['x-gateway-provider']).toBe('simulated');
    const record = await fetch(`${agents.proxy.url}/v1/generation?id=${answer['cf-ray']}`, {
      headers: { authorization: `Bearer ${agents.key}` },
    });
    expect(await record.json()).toMatchObject({
      model: AGENT_ALIAS.models[0],
      requested_model: AGENT_ALIAS.id,
    });
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
        toolCallReply(kind, { id: 'toolu_agent_1', name: 'Read', args: { file_path: file } }),
        textReply(kind, 'The file says marmalade.'),
      );
      const { result, sent } = await agents.proxy.during(() =>
        claude(KIND_PROVIDERS[kind].model, 'What does notes.txt say?', workspace),
      );
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('The file says marmalade.');
      // The second upstream request carries the file's text as the tool's result.
      const upstream = agents.fakes[kind].requests.slice(before);
      expect(upstream).toHaveLength(2);
      expect(JSON.stringify(upstream[1]!.body)).toContain(SECRET);
      // Another kind cannot take Claude Code's thinking and betas: dropped, and said so.
      const dropped = sent[0]!.answerHeaders?.['x-gateway-dropped-params'] ?? '';
      if (kind === 'anthropic') expect(dropped).toBe('');
      else
        expect(dropped.split(',')).toEqual(
          expect.arrayContaining(['thinking', 'system.0.text(x-anthropic-billing-header)']),
        );
      // Its per-conversation billing line is Anthropic's to read; any other vendor would cache
      // no prefix past it.
      const billing = upstream.map((request) =>
        JSON.stringify(request.body).includes('x-anthropic-billing-header'),
      );
      expect(billing).toEqual([kind === 'anthropic', kind === 'anthropic']);
      expectKnownFields(sent);
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
          name: 'Read',
          args: { file_path: path.join(workspace, 'notes.txt') },
        },
        THOUGHT,
      ),
      textReply('anthropic', 'The file says marmalade.'),
    );
    const result = await claude(model, 'What does notes.txt say?', workspace);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('The file says marmalade.');
    expectThinkingKept(fake.requests.slice(before));
  },
  RUN_TIMEOUT_MS * 2,
);

it(
  'sees the cache reads and writes an anthropic upstream reported at its start',
  async () => {
    const workspace = newWorkspace();
    // The prompt's counts come in `message_start` only, as the vendor sends them.
    const startUsage = {
      input_tokens: 40,
      cache_creation_input_tokens: 1500,
      cache_read_input_tokens: 3000,
      output_tokens: 1,
    };
    const reply = textReply('anthropic', 'Cached.');
    agents.fakes.anthropic.reply({
      ...reply,
      events: reply.events!.map((event) =>
        event.startsWith('event: message_start')
          ? event.replace(
              '"usage":{"input_tokens":40,"output_tokens":1}',
              JSON.stringify({ usage: startUsage }).slice(1, -1),
            )
          : event,
      ),
    });
    const result = await claude(KIND_PROVIDERS.anthropic.model, 'Say hi.', workspace, [
      '--output-format',
      'json',
    ]);
    expect(result.code, result.stderr).toBe(0);
    const told = JSON.parse(result.stdout) as { result: string; usage: Record<string, number> };
    expect(told.result).toContain('Cached.');
    expect(told.usage).toMatchObject({
      input_tokens: 40,
      cache_creation_input_tokens: 1500,
      cache_read_input_tokens: 3000,
      output_tokens: 12,
    });
  },
  RUN_TIMEOUT_MS * 2,
);

describe('its model picker', () => {
  it(
    "reads the gateway's models in Anthropic's shape and keeps the Claude ones",
    async () => {
      // Claude Code keeps only ids that name Claude or Anthropic: one such model, and the others.
      const fake = await startFakeUpstream();
      const setup = providersFileFor(
        [
          {
            id: 'ant',
            kind: 'anthropic',
            url: fake.url,
            models: [
              {
                id: 'anthropic/claude-picker-1',
                upstreamModel: 'claude-upstream-1',
                prompt: '0.000001',
                completion: '0.000002',
              },
            ],
          },
        ],
        { includeSimulatedModels: true },
      );
      const gateway = await startTestGateway({ providers: setup.providers });
      const proxy = await startRecordingProxy(gateway.url);
      try {
        const { key } = await gateway.createKey({ kind: 'account', limitUsd: 5 });
        let cached: unknown;
        const { result, sent } = await proxy.during(() =>
          runAgent({
            bin: CLAUDE_BIN,
            args: ['-p', 'Say hi.', '--model', 'sim/chat-standard', '--debug-to-stderr'],
            environment: {
              ANTHROPIC_BASE_URL: proxy.url,
              ANTHROPIC_API_KEY: key,
              CLAUDE_CODE_ENABLE_GATEWAY_MODEL_DISCOVERY: '1',
            },
            readHome: (home) => {
              const file = path.join(home, '.claude', 'cache', 'gateway-models.json');
              if (fs.existsSync(file)) cached = JSON.parse(fs.readFileSync(file, 'utf8'));
            },
          }),
        );
        expect(result.code, result.stderr).toBe(0);
        const listing = sent.filter((request) => request.path.startsWith('/v1/models'));
        expect(listing.map((request) => request.path)).toEqual(['/v1/models?limit=1000']);
        expect(listing[0]!.headers['anthropic-version']).toEqual(expect.any(String));
        expect(listing[0]!.answerHeaders?.vary).toBe('anthropic-version');
        expect(result.stderr).toContain('[gatewayDiscovery] cached 1 models');
        // What its picker lists: the id, and the name the catalog gives it as display_name.
        expect(cached).toMatchObject({
          baseUrl: proxy.url,
          models: [{ id: 'anthropic/claude-picker-1', display_name: 'anthropic/claude-picker-1' }],
        });
      } finally {
        await proxy.close();
        await gateway.stop();
        await fake.close();
      }
    },
    RUN_TIMEOUT_MS * 2,
  );
});
