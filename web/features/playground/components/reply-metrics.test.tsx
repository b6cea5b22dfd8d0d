import { render, screen } from '@testing-library/react';
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

describe('ReplyMetrics', () => {
  it('names the provider that answered, and no attempts when the first one did', () => {
    render(
      <ReplyMetrics
        run={run({ provider: 'simulated', attempts: 1 })}
        replyText="Hello"
        model={toolModel}
      />,
    );
    expect(screen.getByLabelText('Trace ID')).toHaveTextContent(cfRay);
    expect(screen.getByLabelText('Provider')).toHaveTextContent('simulated');
    expect(screen.queryByText(/attempts/)).not.toBeInTheDocument();
  });

  it('says how many attempts it took when there were retries or fallbacks', () => {
    render(
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
    render(<ReplyMetrics run={run(meta)} replyText="Hello" model={toolModel} />);
    expect(screen.queryByText('Provider')).not.toBeInTheDocument();
    expect(screen.getByLabelText('Trace ID')).toHaveTextContent(cfRay);
  });
});
