/** `DELETE /api/profiles/:profile/child-keys/:id`: revokes the key; its profile goes with it. */
import { apiDelete } from '../../../lib/api-client';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { revokedChildKeySchema, type RevokedChildKey } from '../../../../contract/workbench-api';
import { childKeyPath } from '../../../api/child-key-paths';
import { refreshAfterChildKeyChange } from '../../../api/child-keys';

export function revokeChildKey(profile: string, id: string): Promise<RevokedChildKey> {
  return apiDelete(childKeyPath(profile, id), revokedChildKeySchema);
}

export function useRevokeChildKey(profile: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: string) => revokeChildKey(profile, id),
    onSuccess: () => refreshAfterChildKeyChange(queryClient, profile),
  });
}
