import { useEffect } from 'react';

/**
 * While `node` is shown, makes the rest of the page `inert`: every sibling of it and of each of
 * its ancestors up to `body`. For a modal popup that hides the page from screen readers
 * (aria-hidden) but leaves its controls focusable, as Radix Select does: a control that Tab
 * could reach yet a screen reader never announces fails WCAG 4.1.2 (axe's aria-hidden-focus).
 */
export function useInertOutside(node: HTMLElement | null): void {
  useEffect(() => {
    if (!node) return;
    const made: HTMLElement[] = [];
    for (let inside: HTMLElement = node; inside.parentElement; inside = inside.parentElement) {
      for (const sibling of inside.parentElement.children) {
        if (
          sibling === inside ||
          !(sibling instanceof HTMLElement) ||
          sibling.hasAttribute('inert')
        )
          continue;
        // Scripts and live regions hold nothing to focus; a live region must stay heard.
        if (sibling.tagName === 'SCRIPT' || sibling.hasAttribute('aria-live')) continue;
        sibling.setAttribute('inert', '');
        made.push(sibling);
      }
      if (inside.parentElement === document.body) break;
    }
    return () => {
      for (const element of made) element.removeAttribute('inert');
    };
  }, [node]);
}
