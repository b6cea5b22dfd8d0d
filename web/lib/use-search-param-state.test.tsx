import { act, renderHook } from '@testing-library/react';
import { MemoryRouter, useLocation, useNavigate } from 'react-router';
import { vi } from 'vitest';
import { typingPauseMs, useSearchParamState, useUrlBoundText } from './use-search-param-state';

afterEach(() => {
  vi.useRealTimers();
});

describe('useUrlBoundText', () => {
  /** The hook inside a router, with the URL value handed in by the test, as a page would. */
  function renderField(initialUrl: string, write: (text: string) => void) {
    let navigate: ReturnType<typeof useNavigate> = () => {};
    const view = renderHook(
      ({ url }) => {
        navigate = useNavigate();
        return useUrlBoundText(url, write);
      },
      {
        initialProps: { url: initialUrl },
        wrapper: ({ children }) => (
          <MemoryRouter initialEntries={['/catalog']}>{children}</MemoryRouter>
        ),
      },
    );
    return { ...view, navigate: (to: string) => void navigate(to) };
  }

  it('keeps the typed text while its write has not reached the router', () => {
    vi.useFakeTimers();
    const write = vi.fn();
    const { result } = renderField('', write);
    act(() => result.current.type('1/2'));
    act(() => vi.advanceTimersByTime(typingPauseMs));
    expect(write).toHaveBeenCalledWith('1/2');
    // The URL the field is handed still holds the old value: that is not a change from elsewhere.
    expect(result.current.text).toBe('1/2');
  });

  it('takes an older write of its own, shown after a newer one, for its own', () => {
    vi.useFakeTimers();
    const { result, rerender } = renderField('', vi.fn());
    act(() => result.current.type('1/2'));
    act(() => vi.advanceTimersByTime(typingPauseMs));
    act(() => result.current.type('1,5'));
    act(() => vi.advanceTimersByTime(typingPauseMs));
    rerender({ url: '1/2' });
    expect(result.current.text).toBe('1,5');
    rerender({ url: '1,5' });
    expect(result.current.text).toBe('1,5');
    rerender({ url: 'elsewhere' });
    expect(result.current.text).toBe('elsewhere');
  });

  it('shows what the URL holds after Back, even when the router never rendered the typed value', () => {
    vi.useFakeTimers();
    const { result, navigate } = renderField('', vi.fn());
    act(() => result.current.type('chat'));
    act(() => vi.advanceTimersByTime(typingPauseMs));
    // The write's location was overtaken by Back: the router renders nothing new (its location
    // and the value handed in are those of before the write), but the browser says it went back.
    act(() => void window.dispatchEvent(new PopStateEvent('popstate')));
    expect(result.current.text).toBe('');
    // A navigation to a new location with another value is followed too.
    act(() => result.current.type('vision'));
    act(() => vi.advanceTimersByTime(typingPauseMs));
    act(() => navigate('/catalog?elsewhere'));
    expect(result.current.text).toBe('');
  });

  it('keeps the typed text while the person is still typing, then follows the URL', () => {
    vi.useFakeTimers();
    const { result, rerender } = renderField('old', vi.fn());
    act(() => result.current.type('new'));
    rerender({ url: 'elsewhere' });
    expect(result.current.text).toBe('new');
    act(() => vi.advanceTimersByTime(typingPauseMs));
    rerender({ url: 'new' });
    expect(result.current.text).toBe('new');
    rerender({ url: 'back' });
    expect(result.current.text).toBe('back');
  });
});

describe('useSearchParamState', () => {
  function renderWithRouter(initial: string) {
    let location = '';
    let navigate: ReturnType<typeof useNavigate> = () => {};
    const { result } = renderHook(
      () => {
        const state = useSearchParamState();
        location = useLocation().search;
        navigate = useNavigate();
        return state;
      },
      {
        wrapper: ({ children }) => (
          <MemoryRouter initialEntries={[initial]}>{children}</MemoryRouter>
        ),
      },
    );
    return { result, location: () => location, back: () => void navigate(-1) };
  }

  it('keeps both of two changes made before the router renders the first', () => {
    const { result, location } = renderWithRouter('/catalog?from=1');
    act(() => {
      result.current.setParam('from', '20');
      result.current.setParam('to', '5');
    });
    expect(new URLSearchParams(location()).get('from')).toBe('20');
    expect(new URLSearchParams(location()).get('to')).toBe('5');
  });

  it('builds on what Back restored, after the router rendered the write it undid', () => {
    const { result, location, back } = renderWithRouter('/catalog');
    act(() => result.current.setParam('q', 'vision'));
    expect(location()).toBe('?q=vision');
    act(() => back());
    expect(location()).toBe('');
    act(() => result.current.setParam('to', '5'));
    expect(location()).toBe('?to=5');
  });

  it('builds on a navigation from elsewhere, not on its own earlier write', () => {
    const { result, location } = renderWithRouter('/catalog?from=1');
    act(() => result.current.setParam('from', '20'));
    act(() => result.current.update(() => new URLSearchParams('q=chat'), 'push'));
    act(() => result.current.setParam('to', '5'));
    expect(location()).toBe('?q=chat&to=5');
  });
});
