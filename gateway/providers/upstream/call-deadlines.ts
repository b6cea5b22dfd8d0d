/**
 * The deadlines of one upstream call that undici's timeouts cannot keep (to the first event, to
 * the end), on the shared client's one sweeping timer (contract/http-client.ts); a slow client's
 * time is not the provider's. Why: docs/decisions/0011-upstream-deadlines-on-one-timer.md
 */
import { Deadline, type PassedDeadline } from '../../../contract/http-client';
import type { ProviderTimeouts } from './provider-config';
import { UpstreamError } from '../upstream-error';

export class CallDeadline extends Deadline<UpstreamError> {
  constructor(
    timeouts: Pick<ProviderTimeouts, 'firstEventMs' | 'totalMs'>,
    providerId: string,
    now = performance.now(),
  ) {
    super(timeouts, (passed) => expiredCall(passed, timeouts, providerId), now);
  }
}

/** The error a passed deadline ends the call with, worded for the gateway's callers. */
function expiredCall(
  passed: PassedDeadline,
  timeouts: Pick<ProviderTimeouts, 'firstEventMs' | 'totalMs'>,
  providerId: string,
): UpstreamError {
  switch (passed.kind) {
    case 'first_event':
      return new UpstreamError(
        'first_event_timeout',
        providerId,
        `The provider sent no part of its answer within ${duration(timeouts.firstEventMs)}.`,
      );
    case 'total':
      return new UpstreamError(
        'total_timeout',
        providerId,
        `The provider did not finish its answer within ${duration(timeouts.totalMs)}.`,
      );
    case 'slow_reader':
      return new UpstreamError(
        'total_timeout',
        providerId,
        `The answer was cut at twice the provider's limit of ${duration(timeouts.totalMs)} because the client read it slowly (the gateway waited ${(passed.heldMs / 1000).toFixed(1)} s for it to take what was sent).`,
        { slowReader: true },
      );
  }
}

/** `600000` → `10 min`, `1500` → `1500 ms`: as an operator wrote it, readably. */
function duration(milliseconds: number): string {
  if (milliseconds % 60_000 === 0) return `${milliseconds / 60_000} min`;
  if (milliseconds % 1_000 === 0) return `${milliseconds / 1_000} s`;
  return `${milliseconds} ms`;
}
