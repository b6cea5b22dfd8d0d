import { act, renderHook } from '@testing-library/react';
import { vi } from 'vitest';
import { typingPauseMs, useUrlBoundText } from './use-search-param-state';

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
