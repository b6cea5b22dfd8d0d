import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import type { BatchDetailView } from '../../../../contract/workbench-api';
import { mockApi, renderWithQueries, type RecordedRequest } from '../../../test/render-app';
import { captureDownloads } from '../../../test/downloads';
import { NewBatch } from './new-batch';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.restoreAllMocks();
});

const lines =
  '{"custom_id":"a","method":"POST","url":"/v1/embeddings","body":{"model":"sim/embed","input":"a"}}\n' +
  '{"custom_id":"b","method":"POST","url":"/v1/embeddings","body":{"model":"sim/embed","input":"b"}}\n';

function view(overrides: Partial<BatchDetailView['batch']> = {}): BatchDetailView {
  return {
    profile: 'demo-account',
    batch: {
      id: 'batch_1',
      endpoint: '/v1/embeddings',
      status: 'in_progress',
      total: 2,
      completed: 0,
      failed: 0,
      cost_usd: 0,
      created_at: 1_800_000_000,
      output_file_id: null,
      error_file_id: null,
      ...overrides,
    },
    fetched_at: Date.now(),
  };
}

const fileInput = () => screen.getByLabelText('JSONL file');

/** Chooses the embeddings endpoint and a file, and creates the batch. */
async function createBatch(user: ReturnType<typeof userEvent.setup>) {
  await user.click(screen.getByRole('combobox', { name: 'Endpoint' }));
  await user.click(await screen.findByRole('option', { name: '/v1/embeddings' }));
  await user.upload(fileInput(), new File([lines], 'lines.jsonl', { type: 'application/jsonl' }));
  expect(await screen.findByText('2 requests in “lines.jsonl”.')).toBeInTheDocument();
  await user.click(screen.getByRole('button', { name: 'Create batch' }));
}

describe('NewBatch', () => {
  it('says which line is not JSON, and sends nothing', async () => {
    const user = userEvent.setup({ applyAccept: false });
    const requests = mockApi({});
    renderWithQueries(<NewBatch profile="demo-account" />);
    await user.upload(
      fileInput(),
      new File(['{"custom_id":"a"}\nnot json\n'], 'notes.jsonl', { type: 'text/plain' }),
    );
    expect(await screen.findByRole('alert')).toHaveTextContent(
      'Line 2 of “notes.jsonl” is not JSON: a batch file is JSONL, one JSON request a line.',
    );
    expect(screen.getByRole('button', { name: 'Create batch' })).toBeDisabled();
    expect(requests).toHaveLength(0);
  });

  it('refuses a file larger than an upload before reading it', async () => {
    const user = userEvent.setup({ applyAccept: false });
    mockApi({});
    renderWithQueries(<NewBatch profile="demo-account" />);
    const huge = new File(['{}'], 'huge.jsonl');
    Object.defineProperty(huge, 'size', { value: 9 * 1024 * 1024 });
    const read = vi.spyOn(huge, 'text');
    await user.upload(fileInput(), huge);
    expect(await screen.findByRole('alert')).toHaveTextContent(
      '“huge.jsonl” is 9.0 MiB as sent; the workbench uploads at most 8.0 MiB at once.',
    );
    expect(read).not.toHaveBeenCalled();
  });

  it('creates the batch, shows its progress and cost, and cancels it', async () => {
    const user = userEvent.setup({ applyAccept: false });
    const requests = mockApi({
      'POST /api/batches': () => view(),
      'GET /api/batches/batch_1': () => view({ completed: 1, cost_usd: 0.0042 }),
      'POST /api/batches/batch_1/cancel': () =>
        view({ status: 'cancelling', completed: 1, cost_usd: 0.0042 }),
    });
    renderWithQueries(<NewBatch profile="demo-account" />);
    await createBatch(user);

    const batch = await screen.findByRole('group', { name: 'Batch batch_1' });
    await waitFor(() => expect(batch).toHaveTextContent('1 of 2'));
    expect(batch).toHaveTextContent('Cost so far $0.0042');
    expect(
      within(batch).getByRole('progressbar', { name: 'Progress of batch batch_1' }),
    ).toHaveAttribute('value', '1');
    const created = requests.find((request) => request.method === 'POST');
    expect(created?.body).toEqual({
      profile: 'demo-account',
      endpoint: '/v1/embeddings',
      file_name: 'lines.jsonl',
      content: lines,
    });
    expect(
      requests
        .find((request) => request.url.pathname === '/api/batches/batch_1')
        ?.url.searchParams.get('profile'),
    ).toBe('demo-account');

    await user.click(within(batch).getByRole('button', { name: 'Cancel batch' }));
    await waitFor(() => expect(batch).toHaveTextContent('cancelling'));
    expect(within(batch).queryByRole('button', { name: 'Cancel batch' })).not.toBeInTheDocument();
    const cancel = requests.find((request: RecordedRequest) =>
      request.url.pathname.endsWith('/cancel'),
    );
    expect(cancel?.body).toEqual({ profile: 'demo-account' });
  });

  it('downloads an ended batch’s output and errors', async () => {
    const user = userEvent.setup({ applyAccept: false });
    const requests = mockApi({
      'POST /api/batches': () => view(),
      'GET /api/batches/batch_1': () =>
        view({
          status: 'completed',
          completed: 1,
          failed: 1,
          output_file_id: 'file-out',
          error_file_id: 'file-err',
        }),
      'GET /api/batches/batch_1/results': (request) =>
        new Response(`{"custom_id":"${request.url.searchParams.get('file')}"}\n`, {
          headers: { 'Content-Type': 'application/jsonl' },
        }),
    });
    const saved = captureDownloads();
    renderWithQueries(<NewBatch profile="demo-account" />);
    await createBatch(user);

    const batch = await screen.findByRole('group', { name: 'Batch batch_1' });
    await user.click(await within(batch).findByRole('button', { name: 'Download output' }));
    await user.click(within(batch).getByRole('button', { name: 'Download errors' }));
    await waitFor(() => expect(saved).toHaveLength(2));
    expect(saved.map((file) => file.name)).toEqual(['batch_1-output.jsonl', 'batch_1-error.jsonl']);
    expect(await saved[1]!.blob.text()).toBe('{"custom_id":"error"}\n');
    expect(batch).toHaveTextContent('2 of 2 (1 failed)');
    expect(within(batch).queryByRole('button', { name: 'Cancel batch' })).not.toBeInTheDocument();
    expect(
      requests
        .filter((request) => request.url.pathname.endsWith('/results'))
        .map((request) => request.url.searchParams.get('file')),
    ).toEqual(['output', 'error']);
  });
});
