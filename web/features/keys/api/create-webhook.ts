/**
 * `POST /api/profiles/:profile/webhooks`: a new notification endpoint, with its signing secret
 * shown once and kept by nobody, the workbench included.
 */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { WebhookCreate } from '../../../../contract/webhooks';
import {
  createdProfileWebhookSchema,
  type CreatedProfileWebhook,
} from '../../../../contract/workbench-api';
import { apiPost } from '../../../lib/api-client';
import { refreshAfterWebhookChange, webhooksPath } from './webhooks';

export function createWebhook(
  profile: string,
  request: WebhookCreate,
): Promise<CreatedProfileWebhook> {
  return apiPost(webhooksPath(profile), request, createdProfileWebhookSchema);
}

export function useCreateWebhook(profile: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (request: WebhookCreate) => createWebhook(profile, request),
    // The answer holds the secret: dropped from the mutation cache once the dialog closes.
    gcTime: 0,
    onSuccess: () => refreshAfterWebhookChange(queryClient, profile),
  });
}
