import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { GenerationCharge } from '../../../../contract/workbench-api';
import { jsonResponse, mockApi, renderWithQueries } from '../../../test/render-app';
import type { RunRecord } from '../playground-types';
import { finishedRun, toolModel } from '../test-fixtures';
import { ReplyMetrics } from './reply-metrics';

const cfRay = finishedRun.cfRay!;

function run(meta: Partial<NonNullable<RunRecord['meta']>> | null): RunRecord {
  return {
    ...finishedRun,
    meta: meta && { upstream_status: 200, cf_ray: cfRay, ttfb_ms: 5, total_ms: 1200, ...meta },
  };
}

/** The gateway's record of a reply stopped by the person (the issue's own figures). */
const stoppedCharge: GenerationCharge = {
  id: cfRay,
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
};

/** A stopped reply: no usage arrived, so the page alone could only estimate. */
const stoppedRun: RunRecord = {
  ...finishedRun,
  status: 'stopped',
  finishReason: null,
  usage: null,
  request: {
    profile: 'demo-account',
    request: { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'Write a story' }] },
  },
};

const stoppedText = 'Once upon a time '.repeat(28);

describe('ReplyMetrics', () => {
  beforeEach(() => {
    mockApi({ 'GET /api/generation': () => stoppedCharge });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('names the provider that answered, and no attempts when the first one did', () => {
    renderWithQueries(
      <ReplyMetrics
        run={run({ provider: 'simulated', attempts: 1 })}
        replyText="Hello"
        model={toolModel}
      />,
    );
    expect(screen.getByLabelText('Trace ID')).toHaveTextContent(cfRay);
    // The trace id opens the request's record in Activity.
    expect(screen.getByRole('link', { name: `${cfRay}: open in Activity` })).toHaveAttribute(
      'href',
      `/activity?id=${cfRay}`,
    );
    expect(screen.getByLabelText('Provider')).toHaveTextContent('simulated');
    expect(screen.queryByText(/attempts/)).not.toBeInTheDocument();
  });

  it('asks for the key’s balance again once the reply’s charge is recorded', async () => {
    const { queryClient } = renderWithQueries(
      <ReplyMetrics run={run({ provider: 'simulated' })} replyText="Hello" model={toolModel} />,
    );
    queryClient.setQueryData(['balance', 'p'], { stale: false });
    const before = queryClient.getQueryState(['balance', 'p'])!.isInvalidated;
    expect(before).toBe(false);
    await waitFor(() =>
      expect(queryClient.getQueryState(['balance', 'p'])?.isInvalidated).toBe(true),
    );
  });

  it('shows what the gateway dropped or changed to reach the provider, under the reply', () => {
    renderWithQueries(
      <ReplyMetrics
        run={run({
          provider: 'oai',
          attempts: 1,
          translation: { dropped: ['thinking', 'top_k'], adjusted: ['max_tokens=32000->8192'] },
        })}
        replyText="Hello"
        model={toolModel}
      />,
    );
    const report = screen.getByLabelText('Translation');
    expect(report).toHaveTextContent('Dropped for this provider:thinking, top_k');
    expect(report).toHaveTextContent('Adjusted:max_tokens=32000->8192');
  });

  it('shows no translation line when nothing was dropped or changed', () => {
    renderWithQueries(
      <ReplyMetrics
        run={run({ provider: 'simulated', translation: null })}
        replyText="Hello"
        model={toolModel}
      />,
    );
    expect(screen.queryByLabelText('Translation')).not.toBeInTheDocument();
    expect(screen.queryByText(/Dropped for this provider/)).not.toBeInTheDocument();
  });

  it('says how many attempts it took when there were retries or fallbacks', () => {
    renderWithQueries(
      <ReplyMetrics
        run={run({ provider: 'backup', attempts: 3 })}
        replyText="Hello"
        model={toolModel}
      />,
    );
    expect(screen.getByLabelText('Provider')).toHaveTextContent('backup');
    expect(screen.getByText('3 attempts (2 fallbacks/retries)')).toBeInTheDocument();
  });

  it.each([
    ['a run saved before providers were reported', { provider: undefined, attempts: undefined }],
    ['an answer that named no provider', { provider: null, attempts: null }],
    ['a run without any meta', null],
  ])('shows no provider for %s', (_case, meta) => {
    renderWithQueries(<ReplyMetrics run={run(meta)} replyText="Hello" model={toolModel} />);
    expect(screen.queryByText('Provider')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Trace ID')).toHaveTextContent(cfRay);
  });
});

describe('ReplyMetrics: what was charged', () => {
  afterEach(() => vi.unstubAllGlobals());

  it('shows the charged figures of a stopped reply from the gateway’s record, labelled as charged', async () => {
    const requests = mockApi({ 'GET /api/generation': () => stoppedCharge });
    renderWithQueries(<ReplyMetrics run={stoppedRun} replyText={stoppedText} model={toolModel} />);

    expect(await screen.findByText('Charged')).toBeInTheDocument();
    expect(screen.getByText('$0.000305')).toBeInTheDocument();
    expect(screen.getByText('11')).toBeInTheDocument();
    expect(screen.getByText('98')).toBeInTheDocument();
    expect(
      screen.getByText(/from the gateway’s generation record · ended early/),
    ).toBeInTheDocument();
    // The speed is the charged tokens' too (98 in the second after the first token), not an
    // estimate from the text beside tokens from the record: nothing is approximate.
    expect(screen.getByText('98.0 tok/s')).toBeInTheDocument();
    expect(screen.queryAllByText(/≈/)).toEqual([]);
    expect(requests[0]?.url.search).toBe(`?profile=demo-account&id=${cfRay}&pending=1`);
  });

  it('shows the gateway’s own time from the record beside the total, none before it', async () => {
    mockApi({ 'GET /api/generation': () => ({ ...stoppedCharge, overhead_ms: 0.4 }) });
    renderWithQueries(<ReplyMetrics run={stoppedRun} replyText={stoppedText} model={toolModel} />);
    const overhead = screen.getByText('Gateway overhead').nextElementSibling;
    expect(overhead).toHaveTextContent('—');
    expect(await screen.findByText('0.40 ms')).toBe(overhead);
  });

  it('shows the charged amount exactly, as the record and the Activity page have it', async () => {
    mockApi({ 'GET /api/generation': () => ({ ...stoppedCharge, cost_usd: 0.0000307 }) });
    renderWithQueries(<ReplyMetrics run={stoppedRun} replyText={stoppedText} model={toolModel} />);
    expect(await screen.findByText('Charged')).toBeInTheDocument();
    expect(screen.getByText('$0.0000307')).toBeInTheDocument();
    expect(screen.queryByText('$0.000031')).not.toBeInTheDocument();
  });

  it('estimates while the reply streams, says so, and asks for no record yet', () => {
    const requests = mockApi({ 'GET /api/generation': () => stoppedCharge });
    renderWithQueries(
      <ReplyMetrics
        run={{ ...stoppedRun, status: 'streaming', totalMs: null }}
        replyText={stoppedText}
        model={toolModel}
      />,
    );
    expect(screen.getByText('Cost (estimate)')).toBeInTheDocument();
    expect(screen.getByText(/Estimates while the reply streams/)).toBeInTheDocument();
    expect(requests).toHaveLength(0);
  });

  it('keeps the estimate, saying the record is unavailable, and can check again', async () => {
    let recordWritten = false;
    mockApi({
      'GET /api/generation': () =>
        recordWritten
          ? stoppedCharge
          : jsonResponse(403, { error: { message: 'Not your record.', stage: 'gateway' } }),
    });
    renderWithQueries(<ReplyMetrics run={stoppedRun} replyText={stoppedText} model={toolModel} />);
    expect(await screen.findByText(/generation record is unavailable/)).toHaveTextContent(
      'figures are estimates',
    );
    expect(screen.getByText('Cost (estimate)')).toBeInTheDocument();

    recordWritten = true;
    await userEvent.click(screen.getByRole('button', { name: 'Check again' }));
    expect(await screen.findByText('Charged')).toBeInTheDocument();
    expect(screen.getByText('$0.000305')).toBeInTheDocument();
  });

  it('shows no cost for a request the gateway never received', () => {
    const requests = mockApi({ 'GET /api/generation': () => stoppedCharge });
    const notSent: RunRecord = {
      ...stoppedRun,
      status: 'error',
      cfRay: null,
      upstreamStatus: null,
      firstTokenMs: null,
      error: {
        message: 'Cannot connect to the gateway at http://127.0.0.1:8787 (ECONNREFUSED).',
        status: 502,
        stage: 'connect',
        upstreamStatus: null,
        cfRay: null,
        advice: null,
        type: null,
      },
    };
    renderWithQueries(<ReplyMetrics run={notSent} replyText="" model={toolModel} />);
    expect(screen.getByText('$0.00 · not sent')).toBeInTheDocument();
    expect(screen.getByText(/never reached the gateway: nothing was charged/)).toBeInTheDocument();
    expect(screen.queryByText(/≈/)).not.toBeInTheDocument();
    expect(requests).toHaveLength(0);
  });

  it('shows no cost for a request the gateway refused (402)', () => {
    mockApi({});
    const refused: RunRecord = {
      ...stoppedRun,
      status: 'error',
      firstTokenMs: null,
      upstreamStatus: 402,
      error: {
        message: 'The key is disabled.',
        status: 402,
        stage: 'authentication',
        upstreamStatus: 402,
        cfRay,
        advice: null,
        type: 'key_disabled',
      },
    };
    renderWithQueries(<ReplyMetrics run={refused} replyText="" model={toolModel} />);
    expect(screen.getByText('$0.00 · refused')).toBeInTheDocument();
  });
});
