import { render, screen, within } from '@testing-library/react';
import type { RunRecord } from '../playground-types';
import { finishedRun } from '../test-fixtures';
import { RawViewDialog } from './raw-view-dialog';

const meta = '{"upstream_status":200,"cf_ray":"0123456789abcdef-AMS","ttfb_ms":12}';
const streamedRun: RunRecord = {
  ...finishedRun,
  response: {
    kind: 'stream',
    status: 200,
    events: [
      { event: 'meta', data: meta, atMs: 12 },
      { event: 'message', data: '{"choices":[{"delta":{"content":"Hi"}}]}', atMs: 20 },
      { event: 'message', data: '[DONE]', atMs: 30 },
      { event: 'done', data: meta, atMs: 31 },
    ],
  },
};

describe('RawViewDialog', () => {
  it('labels the workbench server’s own stream events apart from the gateway’s', () => {
    render(
      <RawViewDialog
        run={streamedRun}
        onClose={vi.fn()}
        gatewayBaseUrl="http://gateway"
        maskedKey="sk-…abcd"
      />,
    );
    expect(screen.getByRole('tab', { name: 'Stream events (2)' })).toBeInTheDocument();
    const workbench = screen.getByRole('region', { name: 'Workbench server events' });
    expect(workbench).toHaveTextContent(/From the workbench server, not the gateway/);
    expect(workbench).toHaveTextContent('event: meta');
    expect(workbench).toHaveTextContent('event: done');
    const gateway = screen.getByRole('region', { name: 'Gateway response' });
    expect(gateway).toHaveTextContent('data: [DONE]');
    expect(gateway).not.toHaveTextContent('event: meta');
    expect(within(gateway).queryByText(/event: done/)).not.toBeInTheDocument();
  });
});
