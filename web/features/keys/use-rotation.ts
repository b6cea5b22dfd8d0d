/** Runs one rotation and keeps its progress, line by line, for the rotation dialog. */
import { useQueryClient } from '@tanstack/react-query';
import { useCallback, useReducer } from 'react';
import type { RotationRequest } from '../../../contract/workbench-api';
import { refreshAfterChildKeyChange } from '../../api/child-keys';
import { streamRotation } from './api/rotate-child-key';
import { initialRotationProgress, rotationReducer } from './rotation-progress';

/**
 * `start` runs the rotation of child key `id` of the account profile `profile`. It is not
 * cancelled when the dialog goes: a rotation stopped half-way by a closed tab is the BFF's to
 * recover, and the page only shows what it reports.
 */
export function useRotation(profile: string, id: string) {
  const queryClient = useQueryClient();
  const [progress, dispatch] = useReducer(rotationReducer, initialRotationProgress);

  const start = useCallback(
    async (request: RotationRequest) => {
      dispatch({ type: 'start' });
      try {
        await streamRotation(profile, id, request, (event) => dispatch({ type: 'event', event }));
        dispatch({ type: 'ended' });
      } catch (error) {
        dispatch({ type: 'failed', error });
      } finally {
        // Whatever happened, keys and profiles may have changed.
        refreshAfterChildKeyChange(queryClient, profile);
      }
    },
    [profile, id, queryClient],
  );

  const reset = useCallback(() => dispatch({ type: 'reset' }), []);
  return { progress, start, reset };
}
