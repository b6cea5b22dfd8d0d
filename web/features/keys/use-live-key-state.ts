import { useQueryClient } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import type { BalanceView, KeyState } from '../../../contract/workbench-api';
import { liveKeyState } from './key-state';

/** Timers longer than this (about 24 days) would fire at once; such an expiry is far off anyway. */
const longestTimerMs = 2 ** 31 - 1;

/**
 * The key state to show now (see `liveKeyState`): at the moment the key expires it turns
 * Expired without waiting for a poll, and the balance is asked again at that moment so the
 * guidance follows.
 */
export function useLiveKeyState(view: BalanceView | undefined): KeyState | null {
  const queryClient = useQueryClient();
  const expiresAt = view?.balance.expires_at ?? null;
  const profile = view?.profile;
  // The clock reading taken when the expiry passed; null until then.
  const [passedAt, setPassedAt] = useState<{ expiresAt: number; now: number } | null>(null);

  useEffect(() => {
    if (expiresAt === null || profile === undefined) return;
    const delay = expiresAt * 1000 - Date.now();
    if (delay > longestTimerMs) return;
    const timer = window.setTimeout(
      () => {
        setPassedAt({ expiresAt, now: Date.now() });
        void queryClient.invalidateQueries({ queryKey: ['balance', profile] });
      },
      Math.max(0, delay),
    );
    return () => window.clearTimeout(timer);
  }, [expiresAt, profile, queryClient]);

  if (!view) return null;
  const now = passedAt && passedAt.expiresAt === expiresAt ? passedAt.now : 0;
  return liveKeyState(view, now);
}
