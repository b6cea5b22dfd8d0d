/**
 * The playground's API choice and embeddings view against a fake BFF (fetch stubbed): the
 * Responses choice is kept in the URL and sent, Get code follows it, and an embedding model
 * gets inputs, Embed, the vectors, their charge and trace id, and the similarity matrix.
 */
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { createMemoryRouter, Outlet, RouterProvider, useLocation } from 'react-router';
import { ProfileProvider } from '../../app/profile-context';
import { reachableHealth } from '../../test/fixtures';
import { PlaygroundPage } from './playground-page';
import { catalogModel, toolModel } from './test-fixtures';

const cfRay = '0123456789abcdef-AMS';
const embedRay = 'fedcba9876543210-AMS';
const embedModel = catalogModel({
  id: 'sim/embed-small',
  output_modalities: ['embeddings'],
  completion_price: '0',
  supported_parameters: ['dimensions'],
});

function streamedReply(text: string): Response {
  const chunk = (delta: Record<string, unknown>, finish: string | null, usage?: unknown) =>
    `data: ${JSON.stringify({
      id: 'resp_1',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'sim/chat-standard',
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...(usage ? { usage } : {}),
    })}\n\n`;
  const meta = { upstream_status: 200, cf_ray: cfRay, ttfb_ms: 5, total_ms: null };
  const body = [
    `event: meta\ndata: ${JSON.stringify(meta)}\n\n`,
    chunk({ role: 'assistant', content: text }, null),
    chunk({}, 'stop', { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6, cost: 0.00001 }),
    'data: [DONE]\n\n',
    `event: done\ndata: ${JSON.stringify({ ...meta, total_ms: 20 })}\n\n`,
  ].join('');
  return new Response(body, { status: 200, headers: { 'Content-Type': 'text/event-stream' } });
}

function installFakeBff(options: { embeddings?: (body: unknown) => Response } = {}) {
  const chatBodies: unknown[] = [];
  const embeddingBodies: unknown[] = [];
  vi.stubGlobal(
    'fetch',
    vi.fn(async (input: RequestInfo | URL, init?: RequestInit) => {
      const url = String(input);
      if (url.startsWith('/api/catalog'))
        return Response.json({ models: [toolModel, embedModel], fetched_at: 1, skipped: 0 });
      if (url.startsWith('/api/profiles'))
        return Response.json({
          profiles: [{ name: 'demo-account', masked_key: 'sk-…a1b2', identity: 'account' }],
        });
      if (url.startsWith('/api/health')) return Response.json(reachableHealth);
      if (url.startsWith('/api/chat')) {
        chatBodies.push(JSON.parse(String(init?.body)));
        return streamedReply('Hello from Responses');
      }
      if (url.startsWith('/api/embeddings')) {
        const body = JSON.parse(String(init?.body)) as unknown;
        embeddingBodies.push(body);
        if (options.embeddings) return options.embeddings(body);
        return Response.json({
          meta: { upstream_status: 200, cf_ray: embedRay, ttfb_ms: 3, total_ms: 9 },
          model: 'sim/embed-small',
          data: [
            { index: 0, embedding: [1, 0, 0] },
            { index: 1, embedding: [0.6, 0.8, 0] },
            { index: 2, embedding: [0, 1, 0] },
          ],
          usage: { prompt_tokens: 9, total_tokens: 9, cost: 0.0000009 },
        });
      }
      return Response.json({ error: { message: 'No record.', stage: 'gateway' } }, { status: 403 });
    }),
  );
  return { chatBodies, embeddingBodies };
}

/** Shows the router's query string, so a test can read what the page wrote there. */
function LocationProbe() {
  return <output aria-label="Location">{useLocation().search}</output>;
}

function renderPage(path: string) {
  const queryClient = new QueryClient({ defaultOptions: { queries: { retry: false } } });
  const router = createMemoryRouter(
    [
      {
        element: (
          <ProfileProvider>
            <Outlet />
            <LocationProbe />
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

beforeEach(() => window.localStorage.clear());
afterEach(() => vi.unstubAllGlobals());

describe('the API choice', () => {
  it('defaults to chat completions, keeps Responses in the URL and sends it', async () => {
    const user = userEvent.setup();
    const { chatBodies } = installFakeBff();
    renderPage('/playground?model=sim/chat-standard');

    const apiGroup = await screen.findByRole('radiogroup', { name: 'API' });
    expect(within(apiGroup).getByRole('radio', { name: 'Chat completions' })).toBeChecked();
    await user.click(within(apiGroup).getByRole('radio', { name: 'Responses' }));
    expect(within(apiGroup).getByRole('radio', { name: 'Responses' })).toBeChecked();
    expect(screen.getByRole('status', { name: 'Location' })).toHaveTextContent('api=responses');

    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Hi there');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(await screen.findByText('Hello from Responses')).toBeInTheDocument();
    expect(chatBodies).toHaveLength(1);
    expect(chatBodies[0]).toMatchObject({
      profile: 'demo-account',
      api: 'responses',
      request: { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'Hi there' }] },
    });
    // The reply reads as any other: its trace id after the label.
    expect(await screen.findByText(cfRay)).toBeInTheDocument();
    expect(screen.getAllByText('Trace ID').length).toBeGreaterThan(0);

    // Back to chat completions: the default needs no parameter in the URL.
    await user.click(within(apiGroup).getByRole('radio', { name: 'Chat completions' }));
    expect(screen.getByRole('status', { name: 'Location' })).not.toHaveTextContent('api=');
  });

  it('follows ?api=responses, and Get code shows client.responses.create and /v1/responses', async () => {
    const user = userEvent.setup();
    installFakeBff();
    renderPage('/playground?model=sim/chat-standard&api=responses');

    expect(await screen.findByRole('radio', { name: 'Responses' })).toBeChecked();
    await user.type(screen.getByRole('textbox', { name: 'Message' }), 'Code please');
    await user.click(screen.getByRole('button', { name: 'Get code' }));
    const dialog = await screen.findByRole('dialog', { name: 'Get code' });
    expect(within(dialog).getByRole('tabpanel')).toHaveTextContent('/v1/responses');
    await user.click(within(dialog).getByRole('tab', { name: 'JavaScript (openai)' }));
    // The highlighted code is split into spans: its text is read whole.
    await waitFor(() =>
      expect(within(dialog).getByRole('tabpanel')).toHaveTextContent('client.responses.create('),
    );
    expect(dialog.textContent).not.toMatch(/sk-[A-Za-z0-9]{8,}/);
  });
});

describe('the embeddings view', () => {
  it('embeds the inputs and shows sizes, usage, cost, trace id and the similarity matrix', async () => {
    const user = userEvent.setup();
    const { embeddingBodies } = installFakeBff();
    renderPage('/playground?model=sim/embed-small');

    const view = await screen.findByRole('region', { name: 'Embeddings' });
    // No chat here: no message box, no API choice.
    expect(screen.queryByRole('textbox', { name: 'Message' })).not.toBeInTheDocument();
    expect(screen.queryByRole('radiogroup', { name: 'API' })).not.toBeInTheDocument();
    // One input to start, which cannot be removed; Embed says why it is disabled, beside it.
    expect(within(view).getAllByRole('textbox', { name: /^Input/ })).toHaveLength(1);
    expect(within(view).getByRole('button', { name: 'Remove input 1' })).toBeDisabled();
    expect(within(view).getByRole('button', { name: 'Embed' })).toBeDisabled();
    expect(within(view).getByRole('button', { name: 'Embed' })).toHaveAccessibleDescription(
      'Write the text to embed first.',
    );

    await user.type(within(view).getByRole('textbox', { name: 'Input 1' }), 'a cat');
    await user.click(within(view).getByRole('button', { name: 'Add input' }));
    await user.type(within(view).getByRole('textbox', { name: 'Input 2' }), 'a kitten');
    await user.click(within(view).getByRole('button', { name: 'Add input' }));
    await user.type(within(view).getByRole('textbox', { name: 'Input 3' }), 'a truck');
    await user.type(within(view).getByRole('textbox', { name: /Dimensions/ }), '3');
    await user.click(within(view).getByRole('button', { name: 'Embed' }));

    const result = await screen.findByRole('region', { name: 'Embeddings result' });
    expect(embeddingBodies).toEqual([
      {
        profile: 'demo-account',
        request: {
          model: 'sim/embed-small',
          input: ['a cat', 'a kitten', 'a truck'],
          dimensions: 3,
        },
      },
    ]);
    const vectors = within(result).getByRole('list', { name: 'Vectors' });
    expect(within(vectors).getAllByRole('listitem')).toHaveLength(3);
    expect(within(vectors).getAllByText(/3 dimensions/)).toHaveLength(3);
    expect(within(vectors).getByText(/\[0\.6000, 0\.8000, 0\.0000\]/)).toBeInTheDocument();
    expect(within(vectors).getAllByText(/norm 1\.0000/).length).toBeGreaterThan(0);
    expect(within(result).getByText(embedRay)).toBeInTheDocument();
    expect(within(result).getByText('Trace ID')).toBeInTheDocument();
    expect(within(result).getByText('Prompt tokens').parentElement).toHaveTextContent('9');
    expect(within(result).getByText('Cost').parentElement).toHaveTextContent('$0.0000009');

    const matrix = within(result).getByRole('table', { name: /Cosine similarity/ });
    const rows = within(matrix)
      .getAllByRole('row')
      .slice(1)
      .map((row) =>
        within(row)
          .getAllByRole('cell')
          .map((cell) => cell.textContent),
      );
    expect(rows).toEqual([
      ['1.000', '0.600', '0.000'],
      ['0.600', '1.000', '0.800'],
      ['0.000', '0.800', '1.000'],
    ]);
  });

  it('shows the gateway error with its stage and trace id', async () => {
    const user = userEvent.setup();
    installFakeBff({
      embeddings: () =>
        Response.json(
          {
            error: {
              message: 'dimensions is not supported by sim/embed-small',
              stage: 'validation',
              upstream_status: 400,
              cf_ray: embedRay,
            },
          },
          { status: 400 },
        ),
    });
    renderPage('/playground?model=sim/embed-small');
    const view = await screen.findByRole('region', { name: 'Embeddings' });
    await user.type(within(view).getByRole('textbox', { name: 'Input 1' }), 'a');
    await user.click(within(view).getByRole('button', { name: 'Embed' }));
    const alert = await within(view).findByRole('alert');
    expect(alert).toHaveTextContent('dimensions is not supported by sim/embed-small');
    expect(alert).toHaveTextContent(embedRay);
  });

  it('Get code gives client.embeddings.create and curl on /v1/embeddings for the inputs', async () => {
    const user = userEvent.setup();
    installFakeBff();
    renderPage('/playground?model=sim/embed-small');
    const view = await screen.findByRole('region', { name: 'Embeddings' });
    await user.type(within(view).getByRole('textbox', { name: 'Input 1' }), 'first text');
    await user.click(within(view).getByRole('button', { name: 'Add input' }));
    await user.type(within(view).getByRole('textbox', { name: 'Input 2' }), 'second text');
    await user.click(screen.getByRole('button', { name: 'Get code' }));
    const dialog = await screen.findByRole('dialog', { name: 'Get code' });
    expect(within(dialog).getByRole('tabpanel')).toHaveTextContent('/v1/embeddings');
    expect(dialog).toHaveTextContent('second text');
    await user.click(within(dialog).getByRole('tab', { name: 'JavaScript (openai)' }));
    await waitFor(() =>
      expect(within(dialog).getByRole('tabpanel')).toHaveTextContent('client.embeddings.create('),
    );
    expect(within(dialog).queryByRole('tab', { name: /Messages/ })).not.toBeInTheDocument();
  });
});
