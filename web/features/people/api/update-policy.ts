/** `PUT /api/people/policy` (admins): the policy for people's new keys. */
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { policySchema, type MemberKeyPolicy } from '../../../../contract/workbench-people';
import { apiPut } from '../../../lib/api-client';
import { refreshAfterPeopleChange } from './people';

export async function updatePolicy(policy: MemberKeyPolicy): Promise<MemberKeyPolicy> {
  return (await apiPut('/api/people/policy', policy, policySchema)).policy;
}

export function useUpdatePolicy() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updatePolicy,
    onSuccess: () => refreshAfterPeopleChange(queryClient),
  });
}
