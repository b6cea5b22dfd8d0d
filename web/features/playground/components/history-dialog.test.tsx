import { render, screen } from '@testing-library/react';
import { createMessage, createSession } from '../conversation-state';
import { saveHistoryEntry } from '../history-store';
import { HistoryDialog } from './history-dialog';

beforeEach(() => window.localStorage.clear());

describe('HistoryDialog', () => {
  it('counts messages as messages, not as turns', () => {
    const session = {
      ...createSession('sim/chat-standard'),
      messages: [
        createMessage('user', 'Weather in Oslo?'),
        createMessage('assistant', ''),
        createMessage('tool', '{}', { toolCallId: 'call_1' }),
        createMessage('assistant', 'Sunny.'),
      ],
    };
    saveHistoryEntry('run-1', session);
    saveHistoryEntry('run-2', { ...session, messages: session.messages.slice(0, 1) });
    render(<HistoryDialog open onOpenChange={vi.fn()} currentId="run-1" onOpen={vi.fn()} />);
    expect(screen.getByText(/· 4 messages$/)).toBeInTheDocument();
    expect(screen.getByText(/· 1 message$/)).toBeInTheDocument();
    expect(screen.queryByText(/turns?$/)).not.toBeInTheDocument();
  });
});
