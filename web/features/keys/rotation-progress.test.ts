import type { RotationDoneLine } from '../../../contract/workbench-api';
import {
  initialRotationProgress,
  rotationReducer,
  type RotationAction,
  type RotationProgress,
} from './rotation-progress';

const line = (value: object): RotationAction => ({
  type: 'event',
  event: { type: 'line', line: value as RotationDoneLine },
});

function run(actions: RotationAction[]): RotationProgress {
  return actions.reduce(rotationReducer, initialRotationProgress);
}

const statuses = (progress: RotationProgress) => progress.steps.map((step) => step.status);

describe('rotationReducer', () => {
  it('follows each step line, the last word on a step winning', () => {
    const progress = run([
      { type: 'start' },
      line({ step: 1, name: 'create_replacement', status: 'running', detail: 'Creating…' }),
      line({ step: 1, name: 'create_replacement', status: 'done', detail: 'Created.' }),
      line({ step: 2, name: 'update_profile', status: 'running', detail: 'Writing…' }),
    ]);
    expect(progress.phase).toBe('running');
    expect(statuses(progress)).toEqual(['done', 'running', 'waiting', 'waiting']);
    expect(progress.steps[0]?.detail).toBe('Created.');
  });

  it('on a failed done line, marks the failed step failed and the rest not run', () => {
    const progress = run([
      { type: 'start' },
      line({ step: 1, name: 'create_replacement', status: 'done', detail: 'Created.' }),
      line({ step: 2, name: 'update_profile', status: 'running', detail: 'Writing…' }),
      line({ done: true, ok: false, failed_step: 2, state: 'Old key kept.', advice: 'Retry.' }),
    ]);
    expect(progress.phase).toBe('finished');
    expect(statuses(progress)).toEqual(['done', 'failed', 'not_run', 'not_run']);
    expect(progress.outcome?.advice).toBe('Retry.');
  });

  it('says a stream that ends without its done line is unfinished, and keeps unreadable lines', () => {
    const progress = run([
      { type: 'start' },
      line({ step: 1, name: 'create_replacement', status: 'running', detail: 'Creating…' }),
      { type: 'event', event: { type: 'unreadable', text: '<html>' } },
      { type: 'ended' },
    ]);
    expect(progress.interrupted).toBe(true);
    expect(statuses(progress)).toEqual(['failed', 'not_run', 'not_run', 'not_run']);
    expect(progress.unreadable).toEqual(['<html>']);
    // A done line first: the end of the stream changes nothing.
    const finished = run([{ type: 'start' }, line({ done: true, ok: true }), { type: 'ended' }]);
    expect(finished.interrupted).toBe(false);
    expect(rotationReducer(finished, { type: 'reset' })).toBe(initialRotationProgress);
  });
});
