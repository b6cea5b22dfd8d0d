/**
 * `PATCH /api/profiles/:profile/webhooks/:id` (pause, resume) and `DELETE` of the same path.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { WebhookChange } from '../../../../contract/webhooks';
import {
  deletedProfileWebhookSchema,
  profileWebhookSchema,
} from '../../../../contract/workbench-api';
import { apiDelete, apiPatch } from '../../../lib/api-client';
import { refreshAfterWebhookChange, webhooksPath } from './webhooks';

export function useChangeWebhook(profile: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ id, change }: { id: string; change: WebhookChange }) =>
      apiPatch(webhooksPath(profile, id), change, profileWebhookSchema),
    onSuccess: () => refreshAfterWebhookChange(queryClient, profile),
  });
}

export function useDeleteWebhook(profile: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => apiDelete(webhooksPath(profile, id), deletedProfileWebhookSchema),
    onSuccess: () => refreshAfterWebhookChange(queryClient, profile),
  });
}
