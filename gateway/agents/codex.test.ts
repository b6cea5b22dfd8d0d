/**
 * Codex CLI, unmodified, through the gateway: `codex exec` with a custom model provider pointed at
 * the gateway's Responses form runs a task with one round of tool use to its final answer. What
 * it sends is recorded and compared with a fixture, so a release that sends something new fails
 * here first.
 */
import fs from 'node:fs';
import path from 'node:path';
import { startFakeUpstream, type FakeUpstream } from '../test-kit/fake-upstream';
import { textStream, toolCallStream } from '../test-kit/tool-call-streams';
import { providersFileFor } from '../test-kit/upstream-kit';
import { startTestGateway, type TestGateway } from '../testing-support';
import {
  isolatedHome,
  requestShape,
  runCli,
  startRecordingProxy,
  type RecordingProxy,
} from './agent-cli';

const CODEX = path.resolve('node_modules/.bin/codex');
const FIXTURE = path.join(import.meta.dirname, '__fixtures__', 'codex-exec-request-shape.json');

let gateway: TestGateway;
let proxy: RecordingProxy;
let key: string;

beforeAll(async () => {
  gateway = await startTestGateway();
  key = (await gateway.createKey({ kind: 'account', limitUsd: 20 })).key;
  proxy = await startRecordingProxy(gateway.url);
});
afterAll(async () => {
  await proxy?.close();
  await gateway?.stop();
});

/** Codex's own configuration: the gateway as a custom provider, updates and analytics off. */
function writeConfig(codexHome: string, model: string, baseUrl = proxy.url): void {
  fs.mkdirSync(codexHome, { recursive: true });
  fs.writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      `model = "${model}"`,
      'model_provider = "gateway"',
      'check_for_update_on_startup = false',
      '',
      '[model_providers.gateway]',
      'name = "Model gateway"',
      `base_url = "${baseUrl}/v1"`,
      'env_key = "GATEWAY_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
      '[analytics]',
      'enabled = false',
      '',
    ].join('\n'),
  );
}

describe('codex exec through the gateway', () => {
  it('runs a task with a tool round to its final answer on a simulated model', async () => {
    const { home, workspace, cleanup } = isolatedHome();
    try {
      const codexHome = path.join(home, '.codex');
      writeConfig(codexHome, 'sim/chat-standard');
      const before = proxy.requests.length;
      const run = await runCli(CODEX, ['exec', '--skip-git-repo-check', 'please show date'], {
        cwd: workspace,
        env: { HOME: home, CODEX_HOME: codexHome, GATEWAY_API_KEY: key },
        timeoutMs: 120_000,
      });
      const sent = proxy.requests
        .slice(before)
        .filter((request) => request.path === '/v1/responses');
      expect(run.timedOut, run.stderr).toBe(false);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      // The first turn asks for a tool call; the second sends its output back and gets the answer.
      expect(sent.length).toBeGreaterThanOrEqual(2);
      const second = sent[1]!.body as { input: Array<{ type?: string }> };
      expect(second.input.some((item) => item.type === 'function_call')).toBe(true);
      expect(second.input.some((item) => item.type === 'function_call_output')).toBe(true);
      expect(run.stdout.trim().length).toBeGreaterThan(0);

      const shape = requestShape(sent[0]!.body as Record<string, unknown>);
      if (process.env.UPDATE_AGENT_FIXTURES === '1')
        fs.writeFileSync(FIXTURE, `${JSON.stringify(shape, null, 2)}\n`);
      expect(shape).toEqual(JSON.parse(fs.readFileSync(FIXTURE, 'utf8')));
    } finally {
      cleanup();
    }
  });
});

/** Each upstream kind, and OpenAI's Responses wire, behind a provider of its own. */
const VARIANTS = ['openai-compatible', 'openai-responses', 'anthropic', 'gemini'] as const;

describe('codex exec through the gateway to each kind of upstream', () => {
  let kindGateway: TestGateway;
  let kindKey: string;
  const fakes = {} as Record<(typeof VARIANTS)[number], FakeUpstream>;

  beforeAll(async () => {
    for (const variant of VARIANTS) fakes[variant] = await startFakeUpstream();
    const setup = providersFileFor(
      VARIANTS.map((variant) => ({
        id: `up-${variant}`,
        kind: variant === 'openai-responses' ? 'openai-compatible' : variant,
        url: fakes[variant].url,
        retry: { max_attempts: 1 },
        ...(variant === 'openai-responses' && { responses_api: true }),
        models: [
          {
            id: `test/codex-${variant}`,
            upstreamModel: 'upstream-model',
            prompt: '0.000001',
            completion: '0.000002',
          },
        ],
      })),
    );
    kindGateway = await startTestGateway({ providers: setup.providers });
    kindKey = (await kindGateway.createKey({ kind: 'account', limitUsd: 20 })).key;
  });
  afterAll(async () => {
    await kindGateway?.stop();
    for (const fake of Object.values(fakes)) await fake?.close();
  });

  it.each(VARIANTS)('runs a tool round to its final answer via %s', async (variant) => {
    const fake = fakes[variant];
    fake.reply(
      { events: toolCallStream(variant, 'exec_command', { cmd: 'echo gateway-tool-ran' }) },
      { events: textStream(variant, 'The command printed gateway-tool-ran.') },
    );
    const { home, workspace, cleanup } = isolatedHome();
    try {
      const codexHome = path.join(home, '.codex');
      writeConfig(codexHome, `test/codex-${variant}`, kindGateway.url);
      const run = await runCli(CODEX, ['exec', '--skip-git-repo-check', 'run echo'], {
        cwd: workspace,
        env: { HOME: home, CODEX_HOME: codexHome, GATEWAY_API_KEY: kindKey },
        timeoutMs: 120_000,
      });
      expect(run.timedOut, run.stderr).toBe(false);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('The command printed gateway-tool-ran.');
      expect(fake.requests).toHaveLength(2);
      // The second request carries the command's output back to the upstream, in its own form.
      expect(JSON.stringify(fake.requests[1]!.body)).toContain('gateway-tool-ran');
    } finally {
      cleanup();
    }
  });
});
