/**
 * What jsdom lacks and radix-ui / react-virtual use: pointer capture, scrollIntoView,
 * ResizeObserver and matchMedia. Imported by setup.ts for every web test.
 */
if (typeof window !== 'undefined') {
  const elementPrototype = window.HTMLElement.prototype as HTMLElement & Record<string, unknown>;
  elementPrototype.hasPointerCapture ??= () => false;
  elementPrototype.setPointerCapture ??= () => undefined;
  elementPrototype.releasePointerCapture ??= () => undefined;
  elementPrototype.scrollIntoView ??= () => undefined;

  if (!('ResizeObserver' in window)) {
    class ResizeObserverStub {
      observe() {}
      unobserve() {}
      disconnect() {}
    }
    Object.defineProperty(window, 'ResizeObserver', { value: ResizeObserverStub, writable: true });
    Object.defineProperty(globalThis, 'ResizeObserver', {
      value: ResizeObserverStub,
      writable: true,
    });
  }

  if (!window.matchMedia) {
    Object.defineProperty(window, 'matchMedia', {
      writable: true,
      value: (query: string) => ({
        matches: false,
        media: query,
        onchange: null,
        addEventListener: () => undefined,
        removeEventListener: () => undefined,
        addListener: () => undefined,
        removeListener: () => undefined,
        dispatchEvent: () => false,
      }),
    });
  }
}
