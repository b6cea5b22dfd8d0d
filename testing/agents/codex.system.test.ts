/**
 * Codex CLI, unmodified, through the gateway: `codex exec` with a custom model provider pointed at
 * the gateway's Responses form runs a task with one round of tool use to its final answer. What
 * it sent is compared with the recorded fixture: a field, tool type or item type a new release
 * adds fails here first. Once the Responses form is checked to accept it,
 * `UPDATE_AGENT_FIXTURES=1` adds it to the fixture.
 */
import { SUMMARY_REQUEST } from '../../gateway/forms/responses/compaction';
import { startFakeUpstream, type FakeReply, type FakeUpstream } from '../upstreams/fake-upstream';
import { providersFileFor } from '../upstreams/upstream-kit';
import { capturingLogger, startTestGateway, type TestGateway } from '../gateway-support';
import {
  CODEX_BIN,
  diffWithFixture,
  expectThinkingKept,
  RUN_TIMEOUT_MS,
  runAgent,
  startRecordingProxy,
  startThinkingUpstream,
  THINKING_MODEL,
  THOUGHT,
  type RecordingProxy,
} from './agent-kit';
import { textReply, toolCallReply } from './vendor-replies';
import { vendorFixturePath } from '../../gateway/vendors/fixtures';

const FIXTURE = vendorFixturePath('openai', 'codex-requests.json');
/** Besides field names, the values that say what a request holds: tool, item and part kinds. */
const VALUED = ['type', 'role', 'include', 'store', 'stream'];

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

/**
 * What Codex may use besides plain HTTP. `websockets`: the Responses WebSocket (Codex's
 * `supports_websockets`, off by default for a custom provider). `remoteCompaction`: Codex compacts
 * through the provider (a `compaction_trigger` item) only for a provider named "OpenAI" (or
 * Azure); any other compacts on its own with an ordinary request.
 */
type CodexTransport = { websockets?: boolean; remoteCompaction?: boolean; effort?: string };

/** Codex's own configuration: the gateway as a custom provider, updates and analytics off. */
function codexConfig(model: string, baseUrl: string, transport: CodexTransport = {}): string {
  return [
    `model = "${model}"`,
    ...(transport.effort ? [`model_reasoning_effort = "${transport.effort}"`] : []),
    'model_provider = "gateway"',
    'check_for_update_on_startup = false',
    '',
    '[model_providers.gateway]',
    `name = "${transport.remoteCompaction ? 'OpenAI' : 'Model gateway'}"`,
    `base_url = "${baseUrl}/v1"`,
    'env_key = "GATEWAY_API_KEY"',
    'wire_api = "responses"',
    `supports_websockets = ${transport.websockets === true}`,
    'request_max_retries = 0',
    'stream_max_retries = 0',
    '',
    '[analytics]',
    'enabled = false',
    '',
  ].join('\n');
}

/** `codex exec` on `prompt`, its config in the run's own HOME (`~/.codex`, Codex's default). */
function codex(
  model: string,
  prompt: string,
  baseUrl: string,
  apiKey: string,
  transport: CodexTransport = {},
) {
  return runAgent({
    bin: CODEX_BIN,
    args: ['exec', '--skip-git-repo-check', prompt],
    // Plain, non-interactive output: the tests read the final answer from stdout.
    environment: { GATEWAY_API_KEY: apiKey, NO_COLOR: '1', CI: '1' },
    homeFiles: { '.codex/config.toml': codexConfig(model, baseUrl, transport) },
  });
}

describe('codex exec through the gateway', () => {
  it(
    'runs a task with a tool round to its final answer on a simulated model',
    async () => {
      const { result: run, sent: all } = await proxy.during(() =>
        codex('sim/chat-standard', 'please show date', proxy.url, key),
      );
      const sent = all.filter((request) => request.path === '/v1/responses');
      expect(run.timedOut, run.stderr).toBe(false);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      // The first turn asks for a tool call; the second sends its output back and gets the answer.
      expect(sent.length).toBeGreaterThanOrEqual(2);
      const second = sent[1]!.body as { input: Array<{ type?: string }> };
      expect(second.input.some((item) => item.type === 'function_call')).toBe(true);
      expect(second.input.some((item) => item.type === 'function_call_output')).toBe(true);
      expect(run.stdout.trim().length).toBeGreaterThan(0);
      // A field or kind the fixture never had: the Responses form must be checked against it,
      // then the fixture re-recorded.
      expect(diffWithFixture(FIXTURE, sent, { valued: VALUED })).toEqual([]);
    },
    RUN_TIMEOUT_MS * 2,
  );
});

/** Each upstream kind, and OpenAI's Responses wire, behind a provider of its own. */
const VARIANTS = ['openai-compatible', 'openai-responses', 'anthropic', 'gemini'] as const;

describe('codex exec through the gateway to each kind of upstream', () => {
  let kindGateway: TestGateway;
  let kindKey: string;
  const log = capturingLogger();
  const fakes = {} as Record<(typeof VARIANTS)[number], FakeUpstream>;
  let thinking: Awaited<ReturnType<typeof startThinkingUpstream>>;

  beforeAll(async () => {
    for (const variant of VARIANTS) fakes[variant] = await startFakeUpstream();
    thinking = await startThinkingUpstream();
    const setup = providersFileFor([
      thinking.spec,
      ...VARIANTS.map((variant) => ({
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
    ]);
    kindGateway = await startTestGateway({ providers: setup.providers }, { logger: log.logger });
    kindKey = (await kindGateway.createKey({ kind: 'account', limitUsd: 20 })).key;
  });
  afterAll(async () => {
    await kindGateway?.stop();
    for (const fake of Object.values(fakes)) await fake?.close();
    await thinking?.fake.close();
  });

  it(
    'keeps thinking (effort high) through a tool round to an Anthropic upstream that keeps its rules',
    async () => {
      const { fake } = thinking;
      fake.reply(
        toolCallReply(
          'anthropic',
          { id: 'call_agent_2', name: 'exec_command', args: { cmd: 'echo gateway-tool-ran' } },
          THOUGHT,
        ),
        textReply('anthropic', 'The command printed gateway-tool-ran.'),
      );
      const run = await codex(THINKING_MODEL, 'run echo', kindGateway.url, kindKey, {
        effort: 'high',
      });
      expect(run.timedOut, run.stderr).toBe(false);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('The command printed gateway-tool-ran.');
      expectThinkingKept(fake.requests);
    },
    RUN_TIMEOUT_MS * 2,
  );

  it.each(VARIANTS)(
    'runs a tool round to its final answer via %s',
    async (variant) => {
      const fake = fakes[variant];
      fake.reply(
        toolCallReply(variant, {
          id: 'call_agent_1',
          name: 'exec_command',
          args: { cmd: 'echo gateway-tool-ran' },
        }),
        textReply(variant, 'The command printed gateway-tool-ran.'),
      );
      const run = await codex(`test/codex-${variant}`, 'run echo', kindGateway.url, kindKey);
      expect(run.timedOut, run.stderr).toBe(false);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('The command printed gateway-tool-ran.');
      expect(fake.requests).toHaveLength(2);
      // The second request carries the command's output back to the upstream, in its own form.
      expect(JSON.stringify(fake.requests[1]!.body)).toContain('gateway-tool-ran');
    },
    RUN_TIMEOUT_MS * 2,
  );

  /** The tool call's answer says the context is over any window, so Codex compacts next. */
  const overflowing = (reply: FakeReply): FakeReply => ({
    ...reply,
    events: reply.events!.map((event) =>
      event.replace('"input_tokens":40', '"input_tokens":400000'),
    ),
  });

  it.each(['openai-responses', 'anthropic'] as const)(
    'runs a tool round over WebSocket and compacts the session through the gateway via %s',
    async (variant) => {
      const fake = fakes[variant];
      const summary = 'Summary: the user asked to run echo; it printed gateway-tool-ran.';
      fake.reply(
        overflowing(
          toolCallReply(variant, {
            id: 'call_agent_2',
            name: 'exec_command',
            args: { cmd: 'echo gateway-tool-ran' },
          }),
        ),
        textReply(variant, summary),
        textReply(variant, 'Done after compaction.'),
      );
      const sockets = () =>
        log
          .text()
          .split('\n')
          .filter((line) => line.includes('socket response'));
      const socketsBefore = sockets().length;
      const requestsBefore = fake.requests.length;
      const run = await codex(`test/codex-${variant}`, 'run echo', kindGateway.url, kindKey, {
        websockets: true,
        remoteCompaction: true,
      });
      expect(run.timedOut, run.stderr).toBe(false);
      expect(run.code, `${run.stdout}\n${run.stderr}`).toBe(0);
      expect(run.stdout).toContain('Done after compaction.');
      // Over the socket, not the HTTP fallback.
      expect(run.stderr).not.toContain('Falling back from WebSockets');
      expect(sockets().length).toBeGreaterThan(socketsBefore);
      // The tool round, the summary the gateway asked for, then the compacted session.
      const sent = fake.requests.slice(requestsBefore);
      expect(sent).toHaveLength(3);
      expect(JSON.stringify(sent[1]!.body)).toContain(SUMMARY_REQUEST);
      const compacted = JSON.stringify(sent[2]!.body);
      expect(compacted).toContain('it printed gateway-tool-ran');
      expect(compacted).not.toContain('gwc1:');
      expect(compacted).not.toContain(SUMMARY_REQUEST);
    },
    RUN_TIMEOUT_MS * 2,
  );
});
