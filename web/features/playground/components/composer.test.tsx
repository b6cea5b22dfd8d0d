/** Stop in Send's place while a reply streams, safe from the second click of a double click. */
import { fireEvent, render, screen } from '@testing-library/react';
import { Composer } from './composer';

function renderComposer(running: boolean) {
  const onSend = vi.fn();
  const onStop = vi.fn();
  render(
    <Composer
      draft={{ role: 'user', text: 'Hello', images: [] }}
      onDraftChange={() => undefined}
      running={running}
      imagesSupported={false}
      imagesReason={null}
      openToolCalls={[]}
      sendDisabledReason={null}
      onSend={onSend}
      onAdd={() => undefined}
      onStop={onStop}
      promptEstimate={{ tokens: 3, counted: false, contextLength: 1000 }}
    />,
  );
  return { onSend, onStop };
}

describe('Composer', () => {
  it('shows Stop in place of Send while a reply streams', () => {
    renderComposer(true);
    expect(screen.getByRole('button', { name: 'Stop' })).toBeEnabled();
    expect(screen.queryByRole('button', { name: 'Send' })).not.toBeInTheDocument();
  });

  it('ignores the second click of a double click on Send, which lands on Stop', () => {
    const { onStop } = renderComposer(true);
    const stop = screen.getByRole('button', { name: 'Stop' });
    fireEvent.click(stop, { detail: 2 });
    expect(onStop).not.toHaveBeenCalled();
    fireEvent.click(stop, { detail: 1 });
    expect(onStop).toHaveBeenCalledTimes(1);
  });

  it('shows Send when nothing streams', () => {
    const { onSend } = renderComposer(false);
    fireEvent.click(screen.getByRole('button', { name: 'Send' }));
    expect(onSend).toHaveBeenCalledTimes(1);
    expect(screen.queryByRole('button', { name: 'Stop' })).not.toBeInTheDocument();
  });
});
