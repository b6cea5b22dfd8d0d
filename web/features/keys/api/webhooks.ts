/**
 * `GET /api/profiles/:profile/webhooks`: an account profile's notification endpoints, and the
 * BFF paths below it with every part escaped.
 */
import { queryOptions, useQuery, type QueryClient } from '@tanstack/react-query';
import { profileWebhooksSchema, type ProfileWebhooks } from '../../../../contract/workbench-api';
import { apiGet } from '../../../lib/api-client';

/** `/api/profiles/:profile/webhooks`, or one endpoint's path and below it (`test`, …). */
export function webhooksPath(profile: string, ...below: string[]): string {
  return [
    `/api/profiles/${encodeURIComponent(profile)}/webhooks`,
    ...below.map(encodeURIComponent),
  ].join('/');
}

export function webhooksQueryOptions(profile: string) {
  return queryOptions({
    queryKey: ['webhooks', profile],
    queryFn: ({ signal }): Promise<ProfileWebhooks> =>
      apiGet(webhooksPath(profile), profileWebhooksSchema, { signal }),
    staleTime: 4_000,
  });
}

/** The endpoints of `profile`; asked again on focus (the gateway may stop one on failures). */
export function useWebhooks(profile: string) {
  return useQuery({ ...webhooksQueryOptions(profile), refetchOnWindowFocus: true });
}

/** After a change to an endpoint: the list and that account's deliveries. */
export function refreshAfterWebhookChange(queryClient: QueryClient, profile: string): void {
  void queryClient.invalidateQueries({ queryKey: ['webhooks', profile] });
  void queryClient.invalidateQueries({ queryKey: ['webhook-deliveries', profile] });
}
