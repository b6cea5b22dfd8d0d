/** `PATCH /api/people/:id` (admins): budget, period, models, or disabled. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import {
  mePersonSchema,
  type Person,
  type UpdatePersonRequest,
} from '../../../../contract/workbench-people';
import { apiPatch } from '../../../lib/api-client';
import { refreshAfterPeopleChange } from './people';

export async function updatePerson(id: string, change: UpdatePersonRequest): Promise<Person> {
  return (await apiPatch(`/api/people/${encodeURIComponent(id)}`, change, mePersonSchema)).person;
}

export function useUpdatePerson() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (variables: { id: string; change: UpdatePersonRequest }) =>
      updatePerson(variables.id, variables.change),
    onSuccess: () => refreshAfterPeopleChange(queryClient),
  });
}
