import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { PlaygroundDialog } from './playground-dialog';

function Opener() {
  const [open, setOpen] = useState(false);
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>
        History
      </button>
      <PlaygroundDialog open={open} onOpenChange={setOpen} title="History">
        <p>Entries</p>
      </PlaygroundDialog>
    </>
  );
}

describe('PlaygroundDialog', () => {
  it('gives the focus back to the control that opened it when it closes', async () => {
    const user = userEvent.setup();
    render(<Opener />);
    await user.tab();
    expect(screen.getByRole('button', { name: 'History' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(await screen.findByRole('dialog', { name: 'History' })).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'History' })).toHaveFocus();
  });
});
