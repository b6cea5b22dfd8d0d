/**
 * The rotation flow's state as the BFF's stream reports it: each of the four steps (create,
 * repoint, verify, revoke) with its status and what happened, then the outcome. A pure reducer, so
 * every order of lines (a failed step, a stream that breaks off) is testable without a server.
 */
import type { RotationDoneLine, RotationStepName } from '../../../contract/workbench-api';
import type { RotationEvent } from './api/rotate-child-key';

/** The four steps in order, in the words the page shows. */
export const rotationSteps: ReadonlyArray<{ step: number; name: RotationStepName; title: string }> =
  [
    { step: 1, name: 'create_replacement', title: 'Create the replacement' },
    { step: 2, name: 'update_profile', title: 'Update the server-side profile' },
    { step: 3, name: 'verify', title: 'Verify one request' },
    { step: 4, name: 'revoke_old', title: 'Revoke the old secret' },
  ];

/** `not_run`: the flow stopped before this step. */
export type StepStatus = 'waiting' | 'running' | 'done' | 'failed' | 'not_run';

export interface StepProgress {
  status: StepStatus;
  /** What happened, in the BFF's plain words (step 3's trace id and charge included). */
  detail: string | null;
}

export interface RotationProgress {
  phase: 'idle' | 'running' | 'finished';
  steps: StepProgress[];
  /** The done line: how it ended, the keys' state and what to do. */
  outcome: RotationDoneLine | null;
  /** The rotation could not start, or the connection broke (an `ApiRequestError` or other). */
  error: unknown;
  /** The stream ended without its done line. */
  interrupted: boolean;
  /** Lines that were not the contract's shape, kept to say so. */
  unreadable: string[];
}

export type RotationAction =
  | { type: 'reset' }
  | { type: 'start' }
  | { type: 'event'; event: RotationEvent }
  | { type: 'ended' }
  | { type: 'failed'; error: unknown };

const waitingStep: StepProgress = { status: 'waiting', detail: null };

export const initialRotationProgress: RotationProgress = {
  phase: 'idle',
  steps: rotationSteps.map(() => waitingStep),
  outcome: null,
  error: null,
  interrupted: false,
  unreadable: [],
};

/** Steps never reported once the flow stopped: not run, and a step left running failed. */
function settleSteps(steps: StepProgress[], failedStep: number | null): StepProgress[] {
  return steps.map((step, index) => {
    if (step.status === 'waiting') return { ...step, status: 'not_run' };
    if (step.status === 'running' && (failedStep === null || failedStep === index + 1)) {
      return { ...step, status: 'failed' };
    }
    return step;
  });
}

export function rotationReducer(state: RotationProgress, action: RotationAction): RotationProgress {
  switch (action.type) {
    case 'reset':
      return initialRotationProgress;
    case 'start':
      return { ...initialRotationProgress, phase: 'running' };
    case 'event': {
      const { event } = action;
      if (event.type === 'unreadable') {
        return { ...state, unreadable: [...state.unreadable, event.text] };
      }
      const { line } = event;
      if ('done' in line) {
        const steps = line.ok ? state.steps : settleSteps(state.steps, line.failed_step);
        return { ...state, phase: 'finished', outcome: line, steps };
      }
      const steps = state.steps.map((step, index) =>
        index + 1 === line.step ? { status: line.status, detail: line.detail } : step,
      );
      return { ...state, steps };
    }
    case 'ended':
      if (state.phase !== 'running') return state;
      return {
        ...state,
        phase: 'finished',
        interrupted: true,
        steps: settleSteps(state.steps, null),
      };
    case 'failed':
      return {
        ...state,
        phase: 'finished',
        error: action.error,
        steps: settleSteps(state.steps, null),
      };
    default:
      return state;
  }
}
