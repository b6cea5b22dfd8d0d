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

function chunk(delta: Record<string, unknown>, finishReason: string | null = null, usage?: Record<string, number>) {
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
  signal?.addEventListener('abort', () => controller.error(new DOMException('aborted', 'AbortError')));
  return {
    response: new Response(stream, { status: 200, headers: { 'Content-Type': 'text/event-stream' } }),
    push: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
  };
}

type StreamHandle = ReturnType<typeof controllableStream>;

function installFakeBff() {
  const chatBodies: unknown[] = [];
  const streams: StreamHandle[] = [];
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    if (url.startsWith('/api/catalog')) {
      return Response.json({ models: [toolModel, textModel, visionModel], fetched_at: 1, skipped: 0 });
    }
    if (url.startsWith('/api/profiles')) {
      return Response.json({ profiles: [{ name: 'demo-account', masked_key: 'sk-…a1b2', identity: 'account' }] });
    }
    if (url.startsWith('/api/health')) {
      return Response.json(reachableHealth);
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

function renderPage(path = '/playground') {
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
  render(
    <QueryClientProvider client={queryClient}>
      <RouterProvider router={router} />
    </QueryClientProvider>,
  );
}

async function waitForStream(streams: StreamHandle[], count: number) {
  await waitFor(() => expect(streams).toHaveLength(count));
  return streams[count - 1] as StreamHandle;
}

beforeEach(() => window.localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

describe('PlaygroundPage', () => {
  it('streams a reply with its trace id and metrics, and saves the run to history', async () => {
    const user = userEvent.setup();
    const { chatBodies, streams } = installFakeBff();
    renderPage('/playground?model=sim/chat-standard');

    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('sim/chat-standard'));
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hello there');
    await user.click(screen.getByRole('button', { name: 'Send' }));

    const stream = await waitForStream(streams, 1);
    expect(await screen.findByRole('button', { name: 'Stop' })).toBeInTheDocument();
    const routing = { provider: 'backup', attempts: 2 };
    stream.push(`event: meta\ndata: ${JSON.stringify({ upstream_status: 200, cf_ray: cfRay, ttfb_ms: 5, total_ms: null, ...routing })}\n\n`);
    stream.push(chunk({ role: 'assistant', content: 'Hi, **friend**' }));
    expect(await screen.findByText('friend')).toBeInTheDocument();

    stream.push(chunk({}, 'stop', { prompt_tokens: 4, completion_tokens: 3, total_tokens: 7, cost: 0.000013 }));
    stream.push('data: [DONE]\n\n');
    stream.push(`event: done\ndata: ${JSON.stringify({ upstream_status: 200, cf_ray: cfRay, ttfb_ms: 5, total_ms: 30, ...routing })}\n\n`);
    stream.close();

    await waitFor(() => expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument());
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
    await waitFor(() => expect(window.localStorage.getItem(historyStorageKey)).toContain('Hello there'));
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
            { error: { message: 'The key has no remaining balance.', stage: 'admission', upstream_status: 402, cf_ray: cfRay } },
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
  });

  it('disables parameters and tools a model does not support', async () => {
    const user = userEvent.setup();
    installFakeBff();
    renderPage('/playground?model=sim/chat-standard');
    await waitFor(() => expect(screen.getByRole('combobox', { name: 'Model' })).toHaveValue('sim/chat-standard'));
    expect(screen.getByRole('spinbutton', { name: 'temperature' })).toBeEnabled();
    await waitFor(() => expect(screen.getByRole('textbox', { name: 'Tool definitions (JSON array)' })).toBeEnabled());

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
      chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }] }, 'tool_calls'),
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
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }],
      },
      { role: 'tool', content: '{"temperature_c": 21}', tool_call_id: 'call_1' },
    ]);
    expect(second.request.tools).toHaveLength(1);
  });
});
