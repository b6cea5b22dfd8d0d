/** `DELETE /api/people/:id` (admins): revokes the person's key and forgets them. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { z } from 'zod';
import { apiDelete } from '../../../lib/api-client';
import { refreshAfterPeopleChange } from './people';

const removedSchema = z.object({ id: z.string(), removed: z.literal(true) });

export function removePerson(id: string): Promise<z.infer<typeof removedSchema>> {
  return apiDelete(`/api/people/${encodeURIComponent(id)}`, removedSchema);
}

export function useRemovePerson() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: removePerson,
    onSuccess: () => refreshAfterPeopleChange(queryClient),
  });
}
