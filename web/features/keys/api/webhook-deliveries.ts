/**
 * `GET /api/profiles/:profile/webhooks/:id/deliveries` and `POST …/:id/test`: an endpoint's
 * recent deliveries, and a test event sent to it now.
 */
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import {
  webhookDeliveriesSchema,
  webhookTestResultSchema,
} from '../../../../contract/workbench-api';
import { apiGet, apiPost } from '../../../lib/api-client';
import { webhooksPath } from './webhooks';

/** Deliveries pending a retry change on their own: asked again this often while shown. */
export const deliveriesPollIntervalMs = 5_000;

export function useWebhookDeliveries(profile: string, id: string, enabled: boolean) {
  return useQuery({
    queryKey: ['webhook-deliveries', profile, id],
    queryFn: ({ signal }) =>
      apiGet(`${webhooksPath(profile, id, 'deliveries')}?limit=20`, webhookDeliveriesSchema, {
        signal,
      }),
    enabled,
    refetchInterval: deliveriesPollIntervalMs,
  });
}

export function useTestWebhook(profile: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) =>
      apiPost(webhooksPath(profile, id, 'test'), {}, webhookTestResultSchema),
    onSuccess: (_, id) => {
      void queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', profile, id] });
      void queryClient.invalidateQueries({ queryKey: ['webhooks', profile] });
    },
  });
}
