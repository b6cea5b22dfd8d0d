/** `GET /api/profiles/:profile/child-keys/:id/events`: a key's audited changes, newest first. */
import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import { childKeyEventsSchema, type ChildKeyEvents } from '../../../../contract/workbench-api';
import { apiGet, withQuery } from '../../../lib/api-client';
import { childKeyPath } from '../../../api/child-key-paths';

export function fetchChildKeyEvents(
  profile: string,
  id: string,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<ChildKeyEvents> {
  return apiGet(
    withQuery(childKeyPath(profile, id, 'events'), { limit: 50, cursor }),
    childKeyEventsSchema,
    { signal },
  );
}

export function childKeyEventsQueryOptions(profile: string, id: string) {
  return infiniteQueryOptions({
    queryKey: ['child-key-events', profile, id],
    queryFn: ({ pageParam, signal }) => fetchChildKeyEvents(profile, id, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (last) => last.next_cursor,
    staleTime: 5_000,
  });
}

/** The history of one child key; idle until `enabled` (its dialog opens). */
export function useChildKeyEvents(profile: string, id: string, enabled: boolean) {
  return useInfiniteQuery({ ...childKeyEventsQueryOptions(profile, id), enabled });
}
