/**
 * The page against a fake BFF (fetch stubbed): choose a model, send, see the streamed reply
 * with its trace id and metrics; Stop; tools; the parameters follow the chosen model.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, Outlet, RouterProvider } from 'react-router';
import { ProfileProvider } from '../../app/profile-context';
import { reachableHealth } from '../../test/fixtures';
import { historyStorageKey } from './history-store';
import { PlaygroundPage } from './playground-page';
import { textModel, toolModel, visionModel } from './test-fixtures';

const cfRay = '0123456789abcdef-AMS';

function chunk(
  delta: Record<string, unknown>,
  finishReason: string | null = null,
  usage?: Record<string, number>,
) {
  return `data: ${JSON.stringify({
    id: 'gen-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'm',
    choices: [{ index: 0, delta, finish_reason: finishReason }],
    ...(usage ? { usage } : {}),
  })}\n\n`;
}

/** A stream whose parts are released by the test, so "mid-stream" is a state, not a timing. */
function controllableStream(signal: AbortSignal | null | undefined) {
  const encoder = new TextEncoder();
  let controller!: ReadableStreamDefaultController<Uint8Array>;
  const stream = new ReadableStream<Uint8Array>({
    start(streamController) {
      controller = streamController;
    },
  });
  signal?.addEventListener('abort', () =>
    controller.error(new DOMException('aborted', 'AbortError')),
  );
  return {
    response: new Response(stream, {
      status: 200,
      headers: { 'Content-Type': 'text/event-stream' },
    }),
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
  };
}

type StreamHandle = ReturnType<typeof controllableStream>;

function installFakeBff(
  options: {
    charge?: (id: string) => unknown;
    balance?: Record<string, unknown>;
    health?: Record<string, unknown>;
    /** The gateway's token count for a `POST /api/count-tokens` body; unset: a 404. */
    countTokens?: (body: { request: { model: string; messages: unknown[] } }) => number;
  } = {},
) {
  const chatBodies: unknown[] = [];
  const streams: StreamHandle[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (url.startsWith('/api/generation')) {
      const id = new URL(url, 'http://workbench.test').searchParams.get('id') ?? '';
      const charge = options.charge?.(id);
      // Without a record, a 403: the page shows its estimate at once instead of asking again.
      return charge
        ? Response.json(charge)
        : Response.json({ error: { message: 'No record.', stage: 'gateway' } }, { status: 403 });
    }
    if (url.startsWith('/api/catalog')) {
      return Response.json({
        models: [toolModel, textModel, visionModel],
        fetched_at: 1,
        skipped: 0,
      });
    }
    if (url.startsWith('/api/profiles')) {
      return Response.json({
        profiles: [{ name: 'demo-account', masked_key: 'sk-…a1b2', identity: 'account' }],
      });
    }
    if (url.startsWith('/api/balance') && options.balance) {
      return Response.json(options.balance);
    }
    if (url.startsWith('/api/health')) {
      return Response.json(options.health ?? reachableHealth);
    }
    if (url.startsWith('/api/count-tokens') && options.countTokens) {
      return Response.json({ input_tokens: options.countTokens(JSON.parse(String(init?.body))) });
    }
    if (url.startsWith('/api/chat')) {
      chatBodies.push(JSON.parse(String(init?.body)));
      const handle = controllableStream(init?.signal);
      streams.push(handle);
      return handle.response;
    }
    return Response.json({ error: { message: 'not found', stage: 'internal' } }, { status: 404 });
  });
  vi.stubGlobal('fetch', fetchMock);
  return { chatBodies, streams };
}

function renderPage(path = '/playground'): { unmount(): void; search(): string } {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter(
    [
      {
        element: (
          <ProfileProvider>
            <Outlet />
          </ProfileProvider>
        ),
        children: [{ path: 'playground', element: <PlaygroundPage /> }],
      },
    ],
    { initialEntries: [path] },
  );
  const view = render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
  return { unmount: view.unmount, search: () => router.state.location.search };
}

/** Ends a stream the way the BFF does: usage, `[DONE]`, the final meta. */
function finish(stream: StreamHandle, ray = cfRay, usage?: Record<string, number>) {
  stream.push(chunk({}, 'stop', usage));
  stream.push('data: [DONE]\n\n');
  stream.push(
    `event: done\ndata: ${JSON.stringify({ upstream_status: 200, cf_ray: ray, ttfb_ms: 5, total_ms: 30 })}\n\n`,
  );
  stream.close();
}

function startReply(stream: StreamHandle, text: string, ray = cfRay) {
  stream.push(
    `event: meta\ndata: ${JSON.stringify({ upstream_status: 200, cf_ray: ray, ttfb_ms: 5, total_ms: null })}\n\n`,
  );
  stream.push(chunk({ role: 'assistant', content: text }));
}

async function waitForStream(streams: StreamHandle[], count: number) {
  await waitFor(() => expect(streams).toHaveLength(count));
  return streams[count - 1] as StreamHandle;
}

beforeEach(() => window.localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

/** The first bytes of a PNG: enough for the playground to take a file as an image. */
const PNG_SIGNATURE = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);

/** Picks sim/echo-mini, which takes no images, in the Model combobox. */
async function chooseTextOnlyModel(user: ReturnType<typeof userEvent.setup>) {
  const modelBox = screen.getByRole('combobox', { name: 'Model' });
  await user.clear(modelBox);
  await user.type(modelBox, 'echo');
  await user.click(screen.getByRole('option', { name: /sim\/echo-mini/ }));
}

/** The playground on a model that takes images, ready to attach one. */
async function openVisionPlayground() {
  const user = userEvent.setup({ applyAccept: false });
  installFakeBff();
  renderPage('/playground?model=sim/vision-pro');
  await waitFor(() => expect(screen.getByRole('button', { name: 'Attach image' })).toBeEnabled());
  const fileInput = document.querySelector<HTMLInputElement>('input[type="file"]')!;
  return { user, fileInput };
}

describe('PlaygroundPage', () => {
  it('estimates the prompt against the model’s context as the person types', async () => {
    const user = userEvent.setup();
    installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    // 32,768 tokens of context; nothing written yet.
    expect(await screen.findByText('≈0 / 32K prompt tokens (estimate)')).toBeInTheDocument();
    await user.type(screen.getByRole('textbox', { name: 'System prompt' }), 'Be brief.');
    // The draft counts before it is sent: 9 + 1 + 23 characters, about 4 a token.
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'What does a gateway do?');
    expect(screen.getByText('≈8 / 32K prompt tokens (estimate)')).toBeInTheDocument();
    expect(screen.getByRole('meter', { name: 'Context used (estimate)' })).toHaveAttribute(
      'value',
      '8',
    );
  });

  it('shows the gateway’s own count once the typing pauses, without the ≈', async () => {
    const user = userEvent.setup();
    const counted: Array<{ request: { model: string; messages: unknown[] } }> = [];
    installFakeBff({
      countTokens: (body) => {
        counted.push(body);
        return 30_005;
      },
    });
    renderPage('/playground?model=sim/chat-standard');
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'What does a gateway do?');
    expect(await screen.findByText('30,005 / 32K prompt tokens')).toBeInTheDocument();
    expect(screen.getByRole('meter', { name: 'Context used' })).toHaveAttribute('value', '30005');
    // Asked once, after the pause, with what Send would send.
    expect(counted).toEqual([
      {
        profile: 'demo-account',
        request: {
          model: 'sim/chat-standard',
          messages: [{ role: 'user', content: 'What does a gateway do?' }],
        },
      },
    ]);
  });

  it('streams a reply with its trace id and metrics, and saves the run to history', async () => {
    const user = userEvent.setup();
    const { chatBodies, streams } = installFakeBff();
    renderPage('/playground?model=sim/chat-standard');

    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('sim/chat-standard'),
    );
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hello there');
    await user.click(screen.getByRole('button', { name: 'Send' }));

    const stream = await waitForStream(streams, 1);
    expect(await screen.findByRole('button', { name: 'Stop' })).toBeInTheDocument();
    const routing = { provider: 'backup', attempts: 2 };
    stream.push(
      `event: meta\ndata: ${JSON.stringify({ upstream_status: 200, cf_ray: cfRay, ttfb_ms: 5, total_ms: null, ...routing })}\n\n`,
    );
    stream.push(chunk({ role: 'assistant', content: 'Hi, **friend**' }));
    expect(await screen.findByText('friend')).toBeInTheDocument();

    stream.push(
      chunk({}, 'stop', {
        prompt_tokens: 4,
        completion_tokens: 3,
        total_tokens: 7,
        cost: 0.000013,
      }),
    );
    stream.push('data: [DONE]\n\n');
    stream.push(
      `event: done\ndata: ${JSON.stringify({ upstream_status: 200, cf_ray: cfRay, ttfb_ms: 5, total_ms: 30, ...routing })}\n\n`,
    );
    stream.close();

    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument(),
    );
    expect(screen.getByRole('button', { name: 'Send' })).toBeInTheDocument();
    const reply = screen.getByRole('listitem', { name: 'assistant turn 2' });
    expect(within(reply).getByLabelText('Trace ID')).toHaveTextContent(cfRay);
    expect(within(reply).getByLabelText('Provider')).toHaveTextContent('backup');
    expect(within(reply).getByText('2 attempts (1 fallback/retry)')).toBeInTheDocument();
    expect(within(reply).getByText('$0.000013')).toBeInTheDocument();
    expect(within(reply).getByText('stop')).toBeInTheDocument();
    expect(chatBodies[0]).toEqual({
      profile: 'demo-account',
      request: {
        model: 'sim/chat-standard',
        messages: [{ role: 'user', content: 'Hello there' }],
        max_tokens: 1024,
        stream: true,
      },
    });
    await waitFor(() =>
      expect(window.localStorage.getItem(historyStorageKey)).toContain('Hello there'),
    );
  });

  it('stops mid-stream and keeps the partial reply, marked as stopped', async () => {
    const user = userEvent.setup();
    const { streams } = installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'Write a long story');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const stream = await waitForStream(streams, 1);
    stream.push(chunk({ content: 'Once upon a time' }));
    expect(await screen.findByText('Once upon a time')).toBeInTheDocument();

    await user.keyboard('{Escape}');
    expect(await screen.findByText(/Stopped — partial reply/)).toBeInTheDocument();
    expect(screen.getByText('Once upon a time')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument();
  });

  it('shows the 402 advice in place when the key is depleted', async () => {
    const user = userEvent.setup();
    installFakeBff();
    const fetchMock = vi.mocked(fetch);
    const original = fetchMock.getMockImplementation();
    fetchMock.mockImplementation(async (input, init) =>
      String(input).startsWith('/api/chat')
        ? Response.json(
            {
              error: {
                message: 'The key has no remaining balance.',
                stage: 'admission',
                upstream_status: 402,
                cf_ray: cfRay,
              },
            },
            { status: 402 },
          )
        : (original as typeof fetch)(input, init),
    );
    renderPage('/playground?model=sim/chat-standard');
    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'Hi');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The key has no remaining balance.');
    expect(alert).toHaveTextContent(/Do not retry unchanged/);
    expect(alert).toHaveTextContent(cfRay);
    // The failed turn waits for Retry or Discard; Discard drops it with the message it answered.
    expect(screen.getByRole('button', { name: 'Retry turn 2' })).toBeEnabled();
    await user.click(screen.getByRole('button', { name: 'Discard turn 2' }));
    expect(screen.queryByRole('list', { name: 'Conversation' })).not.toBeInTheDocument();
  });

  it('says in the reply when the gateway stops answering, with Stop and Keep waiting', async () => {
    const user = userEvent.setup();
    const { streams } = installFakeBff({ health: { ...reachableHealth, reachable: false } });
    renderPage('/playground?model=sim/chat-standard');
    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'Hello?');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitForStream(streams, 1);
    const reply = await screen.findByRole('listitem', { name: 'assistant turn 2' });
    const note = await within(reply).findByRole('alert');
    expect(note).toHaveTextContent('The gateway does not answer');
    await user.click(within(note).getByRole('button', { name: 'Keep waiting' }));
    expect(within(reply).queryByRole('alert')).not.toBeInTheDocument();
    // Still streaming: the composer's Stop is there.
    expect(screen.getByRole('button', { name: 'Stop' })).toBeInTheDocument();
  });

  it('stops a reply from the hung-gateway note', async () => {
    const user = userEvent.setup();
    const { streams } = installFakeBff({ health: { ...reachableHealth, reachable: false } });
    renderPage('/playground?model=sim/chat-standard');
    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'Hello?');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitForStream(streams, 1);
    const reply = await screen.findByRole('listitem', { name: 'assistant turn 2' });
    const note = await within(reply).findByRole('alert');
    await user.click(within(note).getByRole('button', { name: 'Stop' }));
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument(),
    );
  });

  it('holds a send the key cannot afford and offers the max_tokens it can', async () => {
    const user = userEvent.setup();
    const { streams, chatBodies } = installFakeBff({
      balance: {
        profile: 'demo-account',
        balance: {
          object: 'balance',
          key: 'sk-…a1b2',
          identity: 'account',
          remaining_usd: 0.001,
          limit_usd: 1,
          recharge_usd: 1,
          credit_usd: 0,
          allocated_usd: 0,
          consumption_usd: 0.999,
          grace_usd: 0,
          expires_at: null,
          expired: false,
          disabled: false,
          settlement: 'asynchronous',
          note: '',
        },
        state: 'active',
        guidance: '',
        cf_ray: null,
        fetched_at: 1,
      },
    });
    renderPage('/playground?model=sim/chat-standard');
    const message = await screen.findByRole('textbox', { name: 'Message' });
    await user.type(message, 'Hi');
    // Wait for the balance: the check needs it.
    await waitFor(() =>
      expect(
        vi.mocked(fetch).mock.calls.some(([url]) => String(url).startsWith('/api/balance')),
      ).toBe(true),
    );
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const notice = await screen.findByText(
      /can afford ~\d+ output tokens: set max_tokens to 300\?/,
    );
    expect(notice).toBeInTheDocument();
    expect(streams).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Set max_tokens to 300' }));
    expect(screen.getByRole('spinbutton', { name: 'max_tokens' })).toHaveValue(300);
    expect(screen.queryByText(/can afford/)).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitForStream(streams, 1);
    expect(chatBodies[0]).toMatchObject({ request: { max_tokens: 300 } });
  });

  it('disables parameters and tools a model does not support', async () => {
    const user = userEvent.setup();
    installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    await waitFor(() =>
      expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('sim/chat-standard'),
    );
    expect(screen.getByRole('spinbutton', { name: 'temperature' })).toBeEnabled();
    await waitFor(() =>
      expect(screen.getByRole('textbox', { name: 'Tool definitions (JSON array)' })).toBeEnabled(),
    );

    await user.clear(screen.getByRole('combobox', { name: 'Model' }));
    await user.type(screen.getByRole('combobox', { name: 'Model' }), 'echo');
    await user.click(screen.getByRole('option', { name: /sim\/echo-mini/ }));
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('sim/echo-mini');
    expect(screen.getByRole('spinbutton', { name: 'temperature' })).toBeDisabled();
    expect(screen.getByRole('textbox', { name: 'Tool definitions (JSON array)' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Attach image' })).toBeDisabled();
  });

  it('answers a tool call with a tool result and continues', async () => {
    const user = userEvent.setup();
    const { chatBodies, streams } = installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    await user.click(await screen.findByRole('button', { name: 'Insert example' }));
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Weather in Oslo?');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const first = await waitForStream(streams, 1);
    first.push(
      chunk(
        {
          tool_calls: [
            {
              index: 0,
              id: 'call_1',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        'tool_calls',
      ),
    );
    first.push('data: [DONE]\n\n');
    first.close();

    const result = await screen.findByRole('textbox', { name: /Result for get_weather/ });
    await user.type(result, '{{"temperature_c": 21}');
    await user.click(screen.getByRole('button', { name: 'Submit tool results' }));
    await waitForStream(streams, 2);
    const second = chatBodies[1] as { request: { messages: unknown[]; tools: unknown[] } };
    expect(second.request.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'call_1',
            type: 'function',
            function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
          },
        ],
      },
      { role: 'tool', content: '{"temperature_c": 21}', tool_call_id: 'call_1' },
    ]);
    expect(second.request.tools).toHaveLength(1);
  });
});

describe('PlaygroundPage: what the issue found', () => {
  it('shows what the gateway charged once the reply ends, not its own estimate', async () => {
    const user = userEvent.setup();
    const { streams } = installFakeBff({
      charge: (id) => ({
        id,
        model: 'sim/chat-standard',
        provider: 'simulated',
        prompt_tokens: 11,
        completion_tokens: 98,
        cost_usd: 0.000305,
        outcome: 'ended_early',
        finish_reason: null,
        usage_estimated: false,
        charge_capped: false,
        settlement: 'pending',
        attempts: 1,
        fetched_at: 1,
      }),
    });
    renderPage('/playground?model=sim/chat-standard');
    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'Write a story');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const stream = await waitForStream(streams, 1);
    startReply(stream, 'Once upon a time');
    const reply = await screen.findByRole('listitem', { name: 'assistant turn 2' });
    expect(await within(reply).findByText('Cost (estimate)')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(await within(reply).findByText('Charged')).toBeInTheDocument();
    expect(within(reply).getByText('$0.000305')).toBeInTheDocument();
    expect(within(reply).getByText('98')).toBeInTheDocument();
    // Tokens, cost and the speed worked out from them are the charge's: nothing is approximate.
    expect(within(reply).queryAllByText(/^≈/)).toHaveLength(0);
  });

  it('a Stop the gateway’s record says came after the end says the answer completed', async () => {
    const user = userEvent.setup();
    const { streams } = installFakeBff({
      charge: (id) => ({
        id,
        model: 'sim/chat-standard',
        provider: 'simulated',
        prompt_tokens: 11,
        completion_tokens: 40,
        cost_usd: 0.0001,
        outcome: 'completed',
        finish_reason: 'stop',
        usage_estimated: false,
        charge_capped: false,
        settlement: 'pending',
        attempts: 1,
        fetched_at: 1,
      }),
    });
    renderPage('/playground?model=sim/chat-standard');
    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'Write a story');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    startReply(await waitForStream(streams, 1), 'Once upon a time');
    const reply = await screen.findByRole('listitem', { name: 'assistant turn 2' });
    expect(await within(reply).findByText('Once upon a time')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    expect(await within(reply).findByText('Completed before Stop took effect')).toBeInTheDocument();
    expect(within(reply).getByText(/charged all 40 completion tokens/)).toBeInTheDocument();
    expect(within(reply).queryByText('Stopped — partial reply')).not.toBeInTheDocument();
  });

  it('a Stop after the last chunk arrived keeps the reply whole, not partial', async () => {
    const user = userEvent.setup();
    const { streams } = installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    await user.type(await screen.findByRole('textbox', { name: 'Message' }), 'Hi');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const stream = await waitForStream(streams, 1);
    startReply(stream, 'Hello!');
    stream.push(chunk({}, 'stop'));
    const reply = await screen.findByRole('listitem', { name: 'assistant turn 2' });
    await waitFor(() => expect(within(reply).getByText('stop')).toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Stop' }));
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument(),
    );
    expect(within(reply).queryByText(/Stopped/)).not.toBeInTheDocument();
  });

  it('offers the tool role only with an open tool call, and sends the call’s id with it', async () => {
    const user = userEvent.setup();
    const { chatBodies, streams } = installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    const role = await screen.findByRole('combobox', { name: 'Role' });
    expect(within(role).queryByRole('option', { name: 'tool' })).not.toBeInTheDocument();

    await user.click(await screen.findByRole('button', { name: 'Insert example' }));
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Weather in Oslo?');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const first = await waitForStream(streams, 1);
    first.push(
      chunk(
        {
          tool_calls: [
            {
              index: 0,
              id: 'call_7',
              type: 'function',
              function: { name: 'get_weather', arguments: '{"city":"Oslo"}' },
            },
          ],
        },
        'tool_calls',
      ),
    );
    first.push('data: [DONE]\n\n');
    first.close();

    await waitFor(() =>
      expect(within(role).getByRole('option', { name: 'tool' })).toBeInTheDocument(),
    );
    await user.selectOptions(role, 'tool');
    expect(screen.getByRole('combobox', { name: 'Answers' })).toHaveValue('call_7');
    expect(screen.getByRole('textbox', { name: 'Message' })).toHaveAttribute(
      'placeholder',
      expect.stringMatching(/^Write a tool message/) as unknown as string,
    );
    await user.type(screen.getByRole('textbox', { name: 'Message' }), '{{"temperature_c": 21}');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitForStream(streams, 2);
    const second = chatBodies[1] as { request: { messages: Record<string, unknown>[] } };
    expect(second.request.messages.at(-1)).toEqual({
      role: 'tool',
      content: '{"temperature_c": 21}',
      tool_call_id: 'call_7',
    });
    // Answered: the role is no longer offered.
    await waitFor(() =>
      expect(within(role).queryByRole('option', { name: 'tool' })).not.toBeInTheDocument(),
    );
  });

  it('says "an assistant message" and "a user message"', async () => {
    installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    expect(
      (await screen.findByRole('textbox', { name: 'Message' })).getAttribute('placeholder'),
    ).toMatch(/^Write a user message/);
    await userEvent.selectOptions(
      await screen.findByRole('combobox', { name: 'Role' }),
      'assistant',
    );
    expect(screen.getByRole('textbox', { name: 'Message' }).getAttribute('placeholder')).toMatch(
      /^Write an assistant message/,
    );
  });

  it('refuses a file that is not an image, and flags draft images on a text-only model', async () => {
    const { user, fileInput } = await openVisionPlayground();

    await user.upload(fileInput, new File(['not an image'], 'notes.png', { type: 'image/png' }));
    expect(
      await screen.findByText(/“notes.png” is not a PNG, JPEG, GIF or WebP image/),
    ).toBeInTheDocument();
    expect(screen.queryByRole('img', { name: 'Image 1 to send' })).not.toBeInTheDocument();

    await user.upload(fileInput, new File([PNG_SIGNATURE], 'pixel.png', { type: 'image/png' }));
    expect(await screen.findByRole('img', { name: 'Image 1 to send' })).toBeInTheDocument();

    // A text-only model: the image is flagged, with a way to remove it.
    await chooseTextOnlyModel(user);
    expect(
      await screen.findByText(
        /This image cannot be sent: sim\/echo-mini does not take image input/,
      ),
    ).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Remove the image' })).toBeInTheDocument();
  });

  it('New conversation drops the images still in the draft', async () => {
    const { user, fileInput } = await openVisionPlayground();
    // A turn without an image, so there is a conversation to leave; `Add` empties the draft,
    // so the image is attached only after it, and stays in the draft.
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'First turn');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await user.upload(fileInput, new File([PNG_SIGNATURE], 'pixel.png', { type: 'image/png' }));
    expect(await screen.findByRole('img', { name: 'Image 1 to send' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'New conversation' }));
    expect(screen.queryByRole('listitem', { name: 'user turn 1' })).not.toBeInTheDocument();
    expect(screen.queryByRole('img', { name: 'Image 1 to send' })).not.toBeInTheDocument();
  });

  it('flags images already in the conversation when a text-only model is chosen', async () => {
    const { user, fileInput } = await openVisionPlayground();
    await user.upload(fileInput, new File([PNG_SIGNATURE], 'pixel.png', { type: 'image/png' }));
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'What is this?');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(screen.queryByText(/Earlier turns of this conversation carry/)).not.toBeInTheDocument();

    await chooseTextOnlyModel(user);
    expect(
      await screen.findByText(
        /Earlier turns of this conversation carry an image, which sim\/echo-mini does not take/,
      ),
    ).toBeInTheDocument();
  });

  it('brings the conversation and its system prompt back after a reload, and says so', async () => {
    const user = userEvent.setup();
    const { streams } = installFakeBff();
    const first = renderPage('/playground?model=sim/chat-standard');
    await user.type(await screen.findByRole('textbox', { name: 'System prompt' }), 'Be brief.');
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hello there');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const stream = await waitForStream(streams, 1);
    startReply(stream, 'Hi!');
    finish(stream);
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument(),
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    first.unmount();

    renderPage('/playground');
    expect(await screen.findByRole('textbox', { name: 'System prompt' })).toHaveValue('Be brief.');
    expect(screen.getByRole('listitem', { name: 'user turn 1' })).toHaveTextContent('Hello there');
    expect(screen.getByRole('listitem', { name: 'assistant turn 2' })).toHaveTextContent('Hi!');
    expect(screen.getByText(/conversation from before the reload is back/)).toBeInTheDocument();
    expect(window.localStorage.getItem('workbench.playground.current.v1')).not.toMatch(/sk-/);
  });

  it('with Compare ticked, keeps Send disabled, saying why, until a second model is chosen', async () => {
    const user = userEvent.setup();
    const { streams } = installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    await user.click(await screen.findByRole('checkbox', { name: 'Compare' }));
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Compare these');
    expect(screen.getByRole('button', { name: 'Send' })).toBeDisabled();
    expect(screen.getByText(/Choose a second model to compare with/)).toBeVisible();
    // Ctrl+Enter does not run one model quietly either.
    await user.keyboard('{Control>}{Enter}{/Control}');
    expect(streams).toHaveLength(0);

    await user.type(screen.getByRole('combobox', { name: 'Compare with' }), 'echo');
    await user.click(screen.getByRole('option', { name: /sim\/echo-mini/ }));
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled();
    expect(screen.queryByText(/Choose a second model to compare with/)).not.toBeInTheDocument();
  });

  it('keeps Compare and its models in the URL, and a reload from that URL brings them back', async () => {
    const user = userEvent.setup();
    installFakeBff();
    const first = renderPage('/playground?model=sim/chat-standard');
    await user.click(await screen.findByRole('checkbox', { name: 'Compare' }));
    await waitFor(() => expect(new URLSearchParams(first.search()).get('compare')).toBe(''));
    await user.type(screen.getByRole('combobox', { name: 'Compare with' }), 'echo');
    await user.click(screen.getByRole('option', { name: /sim\/echo-mini/ }));
    await waitFor(() =>
      expect(new URLSearchParams(first.search()).get('compare')).toBe('sim/echo-mini'),
    );
    const url = `/playground${first.search()}`;
    first.unmount();
    window.localStorage.clear();

    renderPage(url);
    expect(await screen.findByRole('checkbox', { name: 'Compare' })).toBeChecked();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Compare these');
    expect(screen.getByRole('button', { name: 'Send' })).toBeEnabled();
  });

  it('after a compare run, asks which reply a new message follows: never two user turns in a row', async () => {
    const user = userEvent.setup();
    const { chatBodies, streams } = installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    await user.click(await screen.findByRole('checkbox', { name: 'Compare' }));
    await user.type(screen.getByRole('combobox', { name: 'Compare with' }), 'echo');
    await user.click(screen.getByRole('option', { name: /sim\/echo-mini/ }));
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Compare these');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitForStream(streams, 2);
    const [left, right] = streams as [StreamHandle, StreamHandle];
    startReply(left, 'Left answer', '0123456789abcdef-AAA');
    finish(left, '0123456789abcdef-AAA');
    startReply(right, 'Right answer', '0123456789abcdef-BBB');
    finish(right, '0123456789abcdef-BBB');
    await waitFor(() =>
      expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument(),
    );

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'And now?');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    const question = screen.getByRole('group', { name: 'Which reply should your message follow?' });
    expect(streams).toHaveLength(2);
    // The replies are all still there while the person decides.
    expect(screen.getByRole('listitem', { name: 'Reply of sim/echo-mini' })).toHaveTextContent(
      'Right answer',
    );

    await user.click(
      within(question).getByRole('button', { name: 'Follow the reply of sim/echo-mini' }),
    );
    await waitForStream(streams, 4);
    const next = chatBodies[2] as {
      request: { model: string; messages: { role: string; content: string }[] };
    };
    expect(next.request.messages.map((message) => message.role)).toEqual([
      'user',
      'assistant',
      'user',
    ]);
    expect(next.request.messages[1]?.content).toBe('Right answer');
    expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('sim/echo-mini');
  });

  it('drops the "Not sent" alert once the value it names is fixed', async () => {
    const user = userEvent.setup();
    installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    const temperature = await screen.findByRole('spinbutton', { name: 'temperature' });
    await user.type(temperature, '5');
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hi');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Not sent:')).toBeInTheDocument();
    await user.clear(temperature);
    await user.type(temperature, '0.5');
    await waitFor(() => expect(screen.queryByText('Not sent:')).not.toBeInTheDocument());
  });
});
