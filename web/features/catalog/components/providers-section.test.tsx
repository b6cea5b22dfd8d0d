import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ModelEndpoints, ProviderEndpoint } from '../../../../contract/workbench-api';
import { shouldRetry } from '../../../lib/query-client';
import { makeModel, makeProviderEndpoint } from '../../../test/fixtures';
import { jsonResponse, mockApi, type MockHandler } from '../../../test/render-app';
import { nextRetryMs } from '../../../api/model-endpoints';
import { statusLabel } from '../../../components/provider-list';
import { ProvidersSection } from './providers-section';

const model = makeModel({
  id: 'openai/gpt-4o-mini',
  prompt_price: '0.00000015',
  completion_price: '0.0000006',
  providers: ['openai', 'azure'],
});

const endpoint = makeProviderEndpoint;

function answer(endpoints: ProviderEndpoint[], skipped = 0): ModelEndpoints {
  return { model: model.id, endpoints, fetched_at: Date.now(), cf_ray: null, skipped };
}

function renderSection(handler: MockHandler) {
  const requests = mockApi({ 'GET /api/catalog/endpoints': handler });
  const queryClient = new QueryClient({
    defaultOptions: { queries: { retry: shouldRetry, retryDelay: 0 } },
  });
  render(
    <QueryClientProvider client={queryClient}>
      <ProvidersSection model={model} />
    </QueryClientProvider>,
  );
  return requests;
}

afterEach(() => vi.unstubAllGlobals());

describe('ProvidersSection', () => {
  it('names a provider whose kind is its name once, not “simulated simulated”', async () => {
    renderSection(() =>
      answer([
        endpoint({ provider: 'simulated', kind: 'simulated', order: 1 }),
        endpoint({ provider: 'azure', kind: 'openai-compatible', order: 2 }),
      ]),
    );
    const list = await screen.findByRole('list', { name: /Providers/ });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(within(first!).getAllByText(/^simulated$/)).toHaveLength(1);
    expect(second).toHaveTextContent('openai-compatible');
  });

  it('lists the providers in fallback order with upstream model, own prices and status', async () => {
    const requests = renderSection(() =>
      answer([
        endpoint({ provider: 'openai', order: 1 }),
        endpoint({
          provider: 'azure',
          order: 2,
          upstream_model: 'gpt-4o-mini-2024-07-18',
          prompt_price: '0.0000002',
          status: 'cooling_down',
          retry_after: 25,
        }),
      ]),
    );
    const list = await screen.findByRole('list', { name: /Providers/ });
    expect(requests[0]?.url.searchParams.get('model')).toBe('openai/gpt-4o-mini');
    const [first, second] = within(list).getAllByRole('listitem');
    expect(first).toHaveTextContent('openai');
    expect(first).toHaveTextContent('gpt-4o-mini');
    expect(first).toHaveTextContent('$0.15 prompt · $0.60 completion');
    expect(first).toHaveTextContent('Healthy');
    expect(first).not.toHaveTextContent('not the catalog price');
    expect(second).toHaveTextContent('azure');
    expect(second).toHaveTextContent('gpt-4o-mini-2024-07-18');
    expect(second).toHaveTextContent('$0.20 prompt');
    expect(second).toHaveTextContent('not the catalog price');
    expect(second).toHaveTextContent('Cooling down · retry in 25 s');
    expect(screen.getByRole('heading', { name: 'Providers (2)' })).toBeInTheDocument();
  });

  it('shows each provider’s last 30 minutes of traffic, and says when there was none', async () => {
    renderSection(() =>
      answer([
        endpoint({
          provider: 'openai',
          order: 1,
          uptime_last_30m: 0.995,
          latency_ms_p50: 1_240,
          ttft_ms_p50: 380,
        }),
        endpoint({ provider: 'azure', order: 2 }),
      ]),
    );
    const list = await screen.findByRole('list', { name: /Providers/ });
    const [first, second] = within(list).getAllByRole('listitem');
    expect(first).toHaveTextContent(
      'Last 30 min99.5% uptime · latency p50 1.2 s · time to first token p50 380 ms',
    );
    expect(second).toHaveTextContent('Last 30 minNo traffic in the last 30 minutes');
    expect(second).not.toHaveTextContent('0%');
  });

  it('says when the gateway lists no provider, and counts entries it could not read', async () => {
    renderSection(() => answer([], 1));
    expect(
      await screen.findByText('The gateway lists no provider for this model.'),
    ).toBeInTheDocument();
    expect(screen.getByText(/1 provider entry was left out/)).toBeInTheDocument();
  });

  it('says what failed, at which stage, and retries on request', async () => {
    let failing = true;
    renderSection(() =>
      failing
        ? jsonResponse(504, {
            error: {
              message: 'The gateway did not finish its answer within 15000 ms of starting it.',
              stage: 'deadline',
            },
          })
        : answer([endpoint({ provider: 'openai' })]),
    );
    // A 504 is retried on its own first (twice), then shown.
    const alert = await screen.findByRole('alert', {}, { timeout: 5_000 });
    expect(alert).toHaveTextContent('Loading the providers failed.');
    expect(alert).toHaveTextContent('receiving the gateway’s answer (too slow)');
    failing = false;
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }));
    expect(await screen.findByText('Healthy')).toBeInTheDocument();
  });
});

describe('statusLabel', () => {
  const fetchedAt = 1_000_000;
  const cooling = (retryAfter: number | null) =>
    endpoint({ provider: 'a', status: 'cooling_down', retry_after: retryAfter });
  it.each([
    ['healthy', endpoint({ provider: 'a' }), 0, 'Healthy'],
    ['cooling down, just fetched', cooling(30), 0, 'Cooling down · retry in 30 s'],
    ['cooling down, 12.5 s later', cooling(30), 12_500, 'Cooling down · retry in 18 s'],
    ['cooling down, past its time', cooling(30), 31_000, 'Cooling down · retry due'],
    ['cooling down, no time given', cooling(null), 0, 'Cooling down'],
    ['an unknown state', endpoint({ provider: 'a', status: 'unknown' }), 0, 'Status unknown'],
  ])('%s', (_case, value, elapsed, label) => {
    expect(statusLabel(value, fetchedAt, fetchedAt + elapsed)).toBe(label);
  });
});

describe('nextRetryMs', () => {
  it('waits for the first cooling-down provider, at least two seconds, and not at all when all are healthy', () => {
    expect(nextRetryMs(undefined)).toBeNull();
    expect(nextRetryMs(answer([endpoint({ provider: 'a' })]))).toBeNull();
    expect(
      nextRetryMs(
        answer([
          endpoint({ provider: 'a', status: 'cooling_down', retry_after: 40 }),
          endpoint({ provider: 'b', status: 'cooling_down', retry_after: 12 }),
        ]),
      ),
    ).toBe(12_000);
    expect(
      nextRetryMs(answer([endpoint({ provider: 'a', status: 'cooling_down', retry_after: 0 })])),
    ).toBe(2_000);
  });
});
