/** The page follows a streaming reply until the user scrolls away, and resumes at the end. */
import { renderHook } from '@testing-library/react';
import { isAtEnd, useFollowOutput } from './use-follow-output';

describe('isAtEnd', () => {
  it('counts a line or two either side of the viewport’s bottom as the end', () => {
    expect(isAtEnd(800, 800)).toBe(true);
    expect(isAtEnd(850, 800)).toBe(true);
    expect(isAtEnd(1600, 800)).toBe(false);
    // Scrolled on past the conversation (a phone's settings below it): not following either.
    expect(isAtEnd(100, 800)).toBe(false);
  });
});

describe('useFollowOutput', () => {
  afterEach(() => vi.restoreAllMocks());

  function setup() {
    Object.defineProperty(window, 'innerHeight', { configurable: true, value: 800 });
    const end = document.createElement('div');
    let endTop = 800;
    end.getBoundingClientRect = () => ({ top: endTop }) as DOMRect;
    const scrollBy = vi.spyOn(window, 'scrollBy').mockImplementation(() => undefined);
    const endRef = { current: end };
    const { rerender } = renderHook(({ running, size }) => useFollowOutput(endRef, running, size), {
      initialProps: { running: true, size: 0 },
    });
    return {
      scrollBy,
      rerender,
      moveEnd: (top: number) => {
        endTop = top;
      },
    };
  }

  it('scrolls the end into view as it grows, stops when scrolled away, resumes at the end', () => {
    const { scrollBy, rerender, moveEnd } = setup();
    moveEnd(1200);
    rerender({ running: true, size: 10 });
    expect(scrollBy).toHaveBeenLastCalledWith({ top: 400 });

    // The user scrolls up to read: new text no longer moves the page.
    scrollBy.mockClear();
    moveEnd(2000);
    window.dispatchEvent(new Event('scroll'));
    moveEnd(2100);
    rerender({ running: true, size: 20 });
    expect(scrollBy).not.toHaveBeenCalled();

    // Back at the end: following again.
    moveEnd(800);
    window.dispatchEvent(new Event('scroll'));
    moveEnd(900);
    rerender({ running: true, size: 30 });
    expect(scrollBy).toHaveBeenLastCalledWith({ top: 100 });
  });

  it('leaves the page alone when nothing streams', () => {
    const { scrollBy, rerender, moveEnd } = setup();
    rerender({ running: false, size: 0 });
    moveEnd(1500);
    rerender({ running: false, size: 10 });
    expect(scrollBy).not.toHaveBeenCalled();
  });
});
