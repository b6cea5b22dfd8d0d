import { act, renderHook } from '@testing-library/react';
import { MemoryRouter, useLocation, useNavigate } from 'react-router';
import { vi } from 'vitest';
import { typingPauseMs, useSearchParamState, useUrlBoundText } from './use-search-param-state';

afterEach(() => {
  vi.useRealTimers();
});

describe('useUrlBoundText', () => {
  it('shows what the URL holds after Back, even when the router never rendered the typed value', () => {
    vi.useFakeTimers();
    const write = vi.fn();
    const { result, rerender } = renderHook(({ url }) => useUrlBoundText(url, write), {
      initialProps: { url: '' },
    });
    act(() => result.current.type('chat'));
    act(() => vi.advanceTimersByTime(typingPauseMs));
    expect(write).toHaveBeenCalledWith('chat');
    // The router's render of `?q=chat` was overtaken by Back: the URL the field sees is '' again.
    rerender({ url: '' });
    expect(result.current.text).toBe('');
  });

  it('keeps the typed text while the person is still typing, then follows the URL', () => {
    vi.useFakeTimers();
    const write = vi.fn();
    const { result, rerender } = renderHook(({ url }) => useUrlBoundText(url, write), {
      initialProps: { url: 'old' },
    });
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
