import { screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { jsonResponse, mockApi, renderWithQueries } from '../../../test/render-app';
import { createMessage } from '../conversation-state';
import { finishedRun, toolModel } from '../test-fixtures';
import { MessageItem, type MessageItemProps } from './message-item';

function renderItem(overrides: Partial<MessageItemProps> = {}) {
  const props: MessageItemProps = {
    message: createMessage('user', 'What is a gateway?'),
    position: 2,
    model: undefined,
    locked: false,
    onEdit: vi.fn(),
    onDelete: vi.fn(),
    onRerun: vi.fn(),
    onRemoveImage: vi.fn(),
    onShowRaw: vi.fn(),
    onShowCode: vi.fn(),
    ...overrides,
  };
  renderWithQueries(
    <ol>
      <MessageItem {...props} />
    </ol>,
  );
  return props;
}

describe('MessageItem', () => {
  beforeEach(() => {
    // No generation record: a finished reply keeps its estimate, labelled so.
    mockApi({
      'GET /api/generation': () =>
        jsonResponse(403, { error: { message: 'No record.', stage: 'gateway' } }),
    });
  });
  afterEach(() => vi.unstubAllGlobals());

  it('edits the text and the role in place', async () => {
    const user = userEvent.setup();
    const props = renderItem();
    await user.click(screen.getByRole('button', { name: 'Edit turn 2' }));
    const editor = screen.getByRole('textbox', { name: 'Text of turn 2' });
    expect(editor).toHaveValue('What is a gateway?');
    // The role shows once, in its select: no badge beside it saying it again.
    expect(screen.getAllByText('user')).toHaveLength(1);
    const role = screen.getByRole('combobox', { name: 'Role of turn 2' });
    // A message cannot become a tool result in an edit: it would answer no call.
    expect(within(role).queryByRole('option', { name: 'tool' })).not.toBeInTheDocument();
    await user.clear(editor);
    await user.type(editor, 'Explain budgets.');
    await user.selectOptions(screen.getByRole('combobox', { name: 'Role of turn 2' }), 'system');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    expect(props.onEdit).toHaveBeenCalledWith({ text: 'Explain budgets.', role: 'system' });
    expect(screen.queryByRole('textbox', { name: 'Text of turn 2' })).not.toBeInTheDocument();
  });

  it('shows the reasoning in a Reasoning block with its token count, open while it streams', () => {
    const reply = {
      ...createMessage('assistant', ''),
      reasoning: 'The user greets me.',
      run: { ...finishedRun, status: 'streaming' as const, usage: null },
    };
    renderItem({ message: reply });
    const summary = screen.getByText('Reasoning');
    expect(summary.closest('details')).toHaveAttribute('open');
    expect(screen.getByText('The user greets me.')).toBeInTheDocument();
    expect(summary).toHaveTextContent('thinking…');
    expect(screen.queryByText(/Waiting for the first token/)).not.toBeInTheDocument();
  });

  it('folds a finished reply’s reasoning, naming how many tokens it took', () => {
    const reply = {
      ...createMessage('assistant', 'Hello!'),
      reasoning: 'The user greets me.',
      run: {
        ...finishedRun,
        usage: { ...finishedRun.usage!, reasoning_tokens: 67 },
      },
    };
    renderItem({ message: reply });
    const summary = screen.getByText('Reasoning');
    expect(summary).toHaveTextContent('Reasoning · 67 tokens');
    expect(summary.closest('details')).not.toHaveAttribute('open');
  });

  it('folds a long message behind Show more, and shows it whole on request', async () => {
    const user = userEvent.setup();
    const paste = `${'lorem ipsum '.repeat(1000)}THE END`;
    renderItem({ message: createMessage('user', paste) });
    const item = screen.getByRole('listitem', { name: 'user turn 2' });
    expect(item).not.toHaveTextContent('THE END');
    expect(item.textContent!.length).toBeLessThan(4_000);
    await user.click(screen.getByRole('button', { name: 'Show more' }));
    expect(item).toHaveTextContent('THE END');
    expect(screen.getByRole('button', { name: 'Show less' })).toHaveAttribute(
      'aria-expanded',
      'true',
    );
  });

  it('cancels an edit without saving', async () => {
    const user = userEvent.setup();
    const props = renderItem();
    await user.click(screen.getByRole('button', { name: 'Edit turn 2' }));
    await user.type(screen.getByRole('textbox', { name: 'Text of turn 2' }), ' more');
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    expect(props.onEdit).not.toHaveBeenCalled();
    expect(screen.getByText('What is a gateway?')).toBeInTheDocument();
  });

  it('deletes and re-runs from this point', async () => {
    const user = userEvent.setup();
    const props = renderItem();
    await user.click(screen.getByRole('button', { name: 'Delete turn 2' }));
    await user.click(screen.getByRole('button', { name: 'Re-run from turn 2' }));
    expect(props.onDelete).toHaveBeenCalledTimes(1);
    expect(props.onRerun).toHaveBeenCalledTimes(1);
  });

  it('locks editing while a reply streams', () => {
    renderItem({ locked: true });
    expect(screen.getByRole('button', { name: 'Edit turn 2' })).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Delete turn 2' })).toBeDisabled();
  });

  it('shows a stopped reply as partial, with its trace id and metrics', () => {
    const reply = createMessage('assistant', 'Partial **answer**', {
      run: {
        model: 'sim/chat-standard',
        status: 'stopped',
        streamed: true,
        startedAt: 0,
        firstTokenMs: 120,
        totalMs: 900,
        cfRay: '0123456789abcdef-AMS',
        upstreamStatus: 200,
        meta: null,
        finishReason: null,
        usage: null,
        error: null,
        request: {
          profile: 'p',
          request: { model: 'sim/chat-standard', messages: [{ role: 'user', content: 'Hi' }] },
        },
        response: null,
      },
    });
    renderItem({ message: reply, model: toolModel });
    const item = screen.getByRole('listitem', { name: 'assistant turn 2' });
    expect(within(item).getByText('answer').tagName).toBe('STRONG');
    expect(within(item).getByText(/Stopped — partial reply/)).toBeInTheDocument();
    expect(within(item).getByLabelText('Trace ID')).toHaveTextContent('0123456789abcdef-AMS');
    expect(within(item).getByText('120 ms')).toBeInTheDocument();
    expect(within(item).getByText('Cost (estimate)')).toBeInTheDocument();
  });

  it('copies the whole reply, and each code block in it alone', async () => {
    const user = userEvent.setup();
    const text = 'Two ways:\n\n```ts\nconst a = 1;\n```\n\nor\n\n```\necho `b`\n```';
    renderItem({
      message: createMessage('assistant', text, { run: finishedRun }),
      model: toolModel,
    });
    const item = screen.getByRole('listitem', { name: 'assistant turn 2' });
    await user.click(within(item).getByRole('button', { name: 'Copy reply of turn 2' }));
    expect(await navigator.clipboard.readText()).toBe(text);
    await user.click(within(item).getByRole('button', { name: 'Copy code block 1 of turn 2' }));
    expect(await navigator.clipboard.readText()).toBe('const a = 1;');
    await user.click(within(item).getByRole('button', { name: 'Copy code block 2 of turn 2' }));
    expect(await navigator.clipboard.readText()).toBe('echo `b`');
  });

  it('offers no reply copy on a message the person wrote', () => {
    renderItem();
    expect(screen.queryByRole('button', { name: /^Copy/ })).not.toBeInTheDocument();
  });
});
