import { useSyncExternalStore } from 'react';

const darkQuery = '(prefers-color-scheme: dark)';

/** Whether the system asks for dark colours (the page follows it, so a canvas must too). */
export function usePrefersDark(): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const media = window.matchMedia(darkQuery);
      media.addEventListener('change', onChange);
      return () => media.removeEventListener('change', onChange);
    },
    () => window.matchMedia(darkQuery).matches,
    () => false,
  );
}
