import { AlertDialog } from 'radix-ui';
import type { ChildKey, RevokedChildKey } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { DialogFooter } from '../../../components/dialog-footer';
import { ErrorPanel } from '../../../components/error-panel';
import { useRevokeChildKey } from '../api/revoke-child-key';
import {
  contentClassName,
  descriptionClassName,
  overlayClassName,
  titleClassName,
  type OpenControl,
  useOpenState,
} from './dialog-frame';

/**
 * `Revoke`: asks first, naming the key by its name and masked form, because it cannot be undone.
 * The profile holding the key goes with it, so no profile is left pointing at a dead key.
 */
export function RevokeChildKeyDialog({
  account,
  childKey,
  onRevoked,
  control,
}: {
  account: string;
  childKey: ChildKey;
  control?: OpenControl;
  /** Called with the BFF's answer (what happened to the profiles) once the key is revoked. */
  onRevoked(result: RevokedChildKey): void;
}) {
  const [open, setOpen] = useOpenState(control);
  const revoke = useRevokeChildKey(account);
  return (
    <AlertDialog.Root
      open={open}
      onOpenChange={(next) => {
        setOpen(next);
        if (!next) revoke.reset();
      }}
    >
      {!control && (
        <AlertDialog.Trigger asChild>
          <Button
            size="small"
            variant="ghost"
            className="text-red-700! dark:text-red-300!"
            aria-label={`Revoke ${childKey.name}`}
          >
            Revoke
          </Button>
        </AlertDialog.Trigger>
      )}
      <AlertDialog.Portal>
        <AlertDialog.Overlay className={overlayClassName} />
        <AlertDialog.Content className={contentClassName()}>
          <AlertDialog.Title className={titleClassName}>
            Revoke “{childKey.name}”?
          </AlertDialog.Title>
          <AlertDialog.Description asChild>
            <div className={`${descriptionClassName} flex flex-col gap-2`}>
              <p>
                The key “{childKey.name}” (<span className="font-mono">{childKey.key}</span>) stops
                working at once. This cannot be undone.
              </p>
              {childKey.kind === 'allocated_child' && (
                <p>What it has not spent goes back to this account’s balance.</p>
              )}
              {childKey.profile !== null && (
                <p>The workbench profile “{childKey.profile}” that holds its secret is removed.</p>
              )}
            </div>
          </AlertDialog.Description>
          {revoke.isError && (
            <ErrorPanel what={`Revoking “${childKey.name}”`} error={revoke.error} />
          )}
          <DialogFooter>
            <AlertDialog.Cancel asChild>
              <Button variant="ghost">Cancel</Button>
            </AlertDialog.Cancel>
            {/* Not AlertDialog.Action: the dialog stays open until the revocation is done. */}
            <Button
              variant="danger"
              disabled={revoke.isPending}
              onClick={() =>
                revoke.mutate(childKey.id, {
                  onSuccess: (result) => {
                    setOpen(false);
                    onRevoked(result);
                  },
                })
              }
            >
              {revoke.isPending ? 'Revoking…' : 'Revoke'}
            </Button>
          </DialogFooter>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
