import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { vi } from 'vitest';
import { jsonResponse, mockApi, mockPageApi, renderRoute } from '../../test/render-app';
import { leavePageTo } from './leave-page';
import { safeNextPath } from './sign-in-page';

vi.mock('./leave-page', () => ({ leavePageTo: vi.fn() }));

const token = 'an-access-token-of-more-than-32-characters';

beforeEach(() => {
  vi.mocked(leavePageTo).mockClear();
  document.cookie = 'workbench_signed_in=; max-age=0';
});

describe('the sign-in page', () => {
  it('asks for the token and, signed in, goes where the person was going', async () => {
    const requests = mockApi({
      'GET /api/session': () => ({ required: true, signed_in: false, expires_at: null }),
      'POST /api/sign-in': (request) =>
        (request.body as { token: string }).token === token
          ? { required: true, signed_in: true, expires_at: Date.now() + 1000 }
          : jsonResponse(401, {
              error: {
                message: 'That is not the workbench’s access token.',
                stage: 'session',
                field: 'token',
                type: 'wrong_token',
              },
            }),
    });
    renderRoute('/sign-in?next=%2Factivity%3Fdays%3D7');
    expect(await screen.findByRole('heading', { name: 'Sign in' })).toBeInTheDocument();
    // No navigation and no profile chooser before signing in: nothing behind them would answer.
    expect(screen.queryByRole('navigation', { name: 'Main' })).not.toBeInTheDocument();
    const input = await screen.findByLabelText('Access token');
    expect(input).toHaveAttribute('type', 'password');

    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('Enter the access token.');
    expect(requests.some((request) => request.url.pathname === '/api/sign-in')).toBe(false);

    await userEvent.type(input, 'wrong-token');
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('not the workbench’s access token');
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(leavePageTo).not.toHaveBeenCalled();

    await userEvent.clear(input);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    await userEvent.type(input, token);
    await userEvent.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(leavePageTo).toHaveBeenCalledWith('/activity?days=7'));
    // The token went in the body of a POST, never in an address.
    const signIns = requests.filter((request) => request.url.pathname === '/api/sign-in');
    expect(signIns.at(-1)?.method).toBe('POST');
    expect(signIns.at(-1)?.body).toEqual({ token });
    for (const request of requests) expect(request.url.href).not.toContain(token);
  });

  it('says when no sign-in is needed', async () => {
    mockApi({
      'GET /api/session': () => ({ required: false, signed_in: false, expires_at: null }),
    });
    renderRoute('/sign-in');
    expect(await screen.findByText(/asks for no sign-in/)).toBeInTheDocument();
    expect(screen.queryByLabelText('Access token')).not.toBeInTheDocument();
  });

  it('goes straight on when already signed in', async () => {
    mockApi({
      'GET /api/session': () => ({
        required: true,
        signed_in: true,
        expires_at: Date.now() + 1000,
      }),
    });
    renderRoute('/sign-in?next=%2Fkeys');
    await waitFor(() => expect(leavePageTo).toHaveBeenCalledWith('/keys'));
  });

  it.each([
    [null, '/'],
    ['/activity?model=x', '/activity?model=x'],
    ['https://evil.example/', '/'],
    ['//evil.example/', '/'],
    ['/\\evil.example', '/'],
    ['/sign-in?next=/keys', '/'],
    ['javascript:alert(1)', '/'],
  ])('goes on to %s as %s, never to another site', (next, expected) => {
    expect(safeNextPath(next)).toBe(expected);
  });
});

describe('Sign out', () => {
  it('is offered only with a session, and ends it', async () => {
    mockPageApi({
      'POST /api/sign-out': () => ({ required: true, signed_in: false, expires_at: null }),
    });
    const first = renderRoute('/activity');
    await screen.findByRole('heading', { name: 'Activity' });
    expect(screen.queryByRole('button', { name: 'Sign out' })).not.toBeInTheDocument();
    first.unmount();

    document.cookie = 'workbench_signed_in=1';
    renderRoute('/keys');
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(leavePageTo).toHaveBeenCalledWith('/sign-in'));
  });

  it('goes to the plain form, not back to the page, when requests on their way come back 401', async () => {
    let endSession!: () => void;
    const ended = new Promise<void>((resolve) => (endSession = resolve));
    mockPageApi({
      // A request the page made just before Sign out, answered once the session is gone.
      'GET /api/activity': async () => {
        await ended;
        return jsonResponse(401, {
          error: { message: 'Sign in first.', stage: 'session', type: 'sign_in_required' },
        });
      },
      'POST /api/sign-out': async () => {
        endSession();
        await new Promise((resolve) => setTimeout(resolve, 50));
        return { required: true, signed_in: false, expires_at: null };
      },
    });
    document.cookie = 'workbench_signed_in=1';
    renderRoute('/activity?days=7');
    await userEvent.click(await screen.findByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(leavePageTo).toHaveBeenCalledWith('/sign-in'));
    expect(leavePageTo).toHaveBeenCalledTimes(1);
  });

  it('sends the page back to the form when the session has ended', async () => {
    mockPageApi({
      'GET /api/activity': () =>
        jsonResponse(401, {
          error: { message: 'Sign in first.', stage: 'session', type: 'sign_in_required' },
        }),
    });
    renderRoute('/activity?days=7');
    await waitFor(() =>
      expect(leavePageTo).toHaveBeenCalledWith(expect.stringMatching(/^\/sign-in\?next=/)),
    );
  });
});
