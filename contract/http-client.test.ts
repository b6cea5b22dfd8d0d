import { afterEach, describe, expect, it } from 'vitest';
import { Deadline, failureOf, type PassedDeadline } from './http-client';

const deadlines: Array<{ clear(): void }> = [];
afterEach(() => {
  for (const deadline of deadlines.splice(0)) deadline.clear();
});

/** A deadline started at 0 whose reason is what passed; checked by hand, never by the sweep. */
function deadlineFrom(limits: { firstEventMs?: number; totalMs: number }) {
  const deadline = new Deadline(limits, (passed) => passed, 0);
  deadlines.push(deadline);
  const cancelled: PassedDeadline[] = [];
  deadline.bind((reason) => cancelled.push(reason));
  return { deadline, cancelled };
}

describe('a call’s deadlines', () => {
  it('ends a call with no first event at the first-event deadline', () => {
    const { deadline, cancelled } = deadlineFrom({ firstEventMs: 100, totalMs: 1_000 });
    deadline.check(99);
    expect(cancelled).toEqual([]);
    deadline.check(100);
    expect(cancelled).toEqual([{ kind: 'first_event' }]);
    expect(deadline.expired).toEqual({ kind: 'first_event' });
  });

  it('keeps only the total deadline once the answer has started', () => {
    const { deadline, cancelled } = deadlineFrom({ firstEventMs: 100, totalMs: 1_000 });
    deadline.answerStarted();
    deadline.check(999);
    expect(cancelled).toEqual([]);
    deadline.check(1_000);
    expect(cancelled).toEqual([{ kind: 'total' }]);
  });

  it('does not count the time the reader held an event, and cuts a slow reader at twice the total', () => {
    const { deadline, cancelled } = deadlineFrom({ totalMs: 1_000 });
    deadline.handedOver(100);
    deadline.takenBack(400);
    deadline.check(1_200);
    expect(cancelled).toEqual([]);
    deadline.check(1_300);
    expect(cancelled).toEqual([{ kind: 'total' }]);

    const slow = deadlineFrom({ totalMs: 1_000 });
    slow.deadline.handedOver(500);
    slow.deadline.check(1_999);
    expect(slow.cancelled).toEqual([]);
    slow.deadline.check(2_000);
    expect(slow.cancelled).toEqual([{ kind: 'slow_reader', heldMs: 1_500 }]);
  });

  it('cancels what is bound after it passed, at once', () => {
    const deadline = new Deadline({ totalMs: 10 }, () => 'late', 0);
    deadlines.push(deadline);
    deadline.check(10);
    const cancelled: string[] = [];
    deadline.bind((reason) => cancelled.push(reason));
    expect(cancelled).toEqual(['late']);
  });
});

describe('a failure’s name', () => {
  const failure = (code: string) => Object.assign(new Error('failed'), { code });

  it('names undici’s timeouts by their stage', () => {
    expect(failureOf(failure('UND_ERR_CONNECT_TIMEOUT'), 'before')).toBe('connect_timeout');
    expect(failureOf(failure('UND_ERR_HEADERS_TIMEOUT'), 'before')).toBe('first_byte_timeout');
    expect(failureOf(failure('UND_ERR_BODY_TIMEOUT'), 'during')).toBe('idle_timeout');
  });

  it('finds the code on a wrapped cause, and knows a parser error without one', () => {
    const wrapped = new TypeError('fetch failed', { cause: failure('HPE_INVALID_CONSTANT') });
    expect(failureOf(wrapped, 'before')).toBe('not_http');
    const parser = Object.assign(new Error('not HTTP'), { name: 'HTTPParserError' });
    expect(failureOf(parser, 'during')).toBe('not_http');
  });

  it('tells a call never answered from an answer cut short', () => {
    expect(failureOf(failure('ECONNRESET'), 'before')).toBe('unanswered');
    expect(failureOf(failure('ECONNRESET'), 'during')).toBe('cut');
  });
});
