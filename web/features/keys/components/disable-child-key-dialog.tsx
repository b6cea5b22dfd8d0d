import { AlertDialog } from 'radix-ui';
import type { ChildKey } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { DialogFooter } from '../../../components/dialog-footer';
import { AlertFrame, descriptionClassName, type OpenControl } from './dialog-frame';

/**
 * `Disable`: asks first, as Revoke does, since whoever uses the key is refused at once. Enabling
 * again undoes it, so Enable needs no question.
 */
export function DisableChildKeyDialog({
  childKey,
  disabled,
  onDisable,
  control,
}: {
  childKey: ChildKey;
  control?: OpenControl;
  /** The toggle is under way. */
  disabled: boolean;
  onDisable(): void;
}) {
  return (
    <AlertDialog.Root open={control?.open} onOpenChange={control?.onOpenChange}>
      {!control && (
        <AlertDialog.Trigger asChild>
          <Button
            size="small"
            variant="ghost"
            aria-label={`Disable ${childKey.name}`}
            disabled={disabled}
          >
            Disable
          </Button>
        </AlertDialog.Trigger>
      )}
      <AlertFrame title={`Disable “${childKey.name}”?`}>
        <AlertDialog.Description className={descriptionClassName}>
          Every request with <span className="font-mono">{childKey.key}</span> is refused (HTTP 402)
          until it is enabled again. Its balance, limit and secret stay as they are.
        </AlertDialog.Description>
        <DialogFooter>
          <AlertDialog.Cancel asChild>
            <Button variant="ghost">Cancel</Button>
          </AlertDialog.Cancel>
          <AlertDialog.Action asChild>
            <Button variant="danger" onClick={onDisable}>
              Disable
            </Button>
          </AlertDialog.Action>
        </DialogFooter>
      </AlertFrame>
    </AlertDialog.Root>
  );
}
