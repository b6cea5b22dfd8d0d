import { DropdownMenu } from 'radix-ui';
import { MenuContent } from '../../../components/menu-content';
import { useState } from 'react';
import type { ChildKey, RevokedChildKey } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { ChildKeyHistoryDialog } from './child-key-history-dialog';
import { DisableChildKeyDialog } from './disable-child-key-dialog';
import { EditChildKeyDialog } from './edit-child-key-dialog';
import { RevokeChildKeyDialog } from './revoke-child-key-dialog';

/** What the section does for a row: the actions whose outcome outlives the row. */
export interface ChildKeyHandlers {
  /** Disables an enabled key, enables a disabled one. */
  onToggle(key: ChildKey): void;
  /** The key whose Disable/Enable is under way. */
  togglingId: string | null;
  /** The BFF's answer (what happened to the profiles) once a key is revoked. */
  onRevoked(result: RevokedChildKey): void;
  /**
   * Opens the rotation flow of a key: in four steps when a workbench profile (`holder`) holds
   * it, handed over when none does.
   */
  onRotate(key: ChildKey, holder: string | null): void;
}

/**
 * What can be done to one child key. Each button's name adds the key's name to its word, so a
 * screen reader's list of buttons tells the rows apart ("Revoke ci-bot").
 */
export function ChildKeyActions({
  account,
  childKey,
  handlers,
}: {
  account: string;
  childKey: ChildKey;
  handlers: ChildKeyHandlers;
}) {
  return (
    <>
      <div className="max-sm:hidden">
        <RowButtons account={account} childKey={childKey} handlers={handlers} />
      </div>
      <div className="sm:hidden">
        <PhoneMenu account={account} childKey={childKey} handlers={handlers} />
      </div>
    </>
  );
}

type ActionsProps = { account: string; childKey: ChildKey; handlers: ChildKeyHandlers };

/** Desktop: one button per action, Revoke last. */
function RowButtons({ account, childKey, handlers }: ActionsProps) {
  const revoked = childKey.state === 'revoked';
  const holder = childKey.profile;
  return (
    <div className="flex flex-wrap items-center gap-1">
      {!revoked && (
        <>
          <EditChildKeyDialog account={account} childKey={childKey} />
          {childKey.disabled ? (
            <Button
              size="small"
              variant="ghost"
              aria-label={`Enable ${childKey.name}`}
              disabled={handlers.togglingId === childKey.id}
              onClick={() => handlers.onToggle(childKey)}
            >
              Enable
            </Button>
          ) : (
            <DisableChildKeyDialog
              childKey={childKey}
              disabled={handlers.togglingId === childKey.id}
              onDisable={() => handlers.onToggle(childKey)}
            />
          )}
        </>
      )}
      <ChildKeyHistoryDialog account={account} childKey={childKey} />
      {!revoked && (
        <Button
          size="small"
          variant="ghost"
          aria-label={`Rotate ${childKey.name}`}
          data-rotate-key={childKey.id}
          onClick={() => handlers.onRotate(childKey, holder)}
        >
          Rotate
        </Button>
      )}
      {!revoked && (
        <RevokeChildKeyDialog
          account={account}
          childKey={childKey}
          onRevoked={handlers.onRevoked}
        />
      )}
    </div>
  );
}

/** The dialogs the phone's menu opens (Rotate and Enable are the section's, and open none). */
type MenuDialog = 'edit' | 'disable' | 'history' | 'revoke';

const menuItemClass =
  'flex min-h-11 cursor-pointer items-center rounded px-3 text-sm outline-none select-none data-[disabled]:opacity-50 data-[highlighted]:bg-zinc-100 dark:data-[highlighted]:bg-zinc-800';

/**
 * A phone: five buttons would wrap into 28 px rows, Revoke under another action. One 44 px
 * "Actions" button opens a menu of 44 px items instead, the destructive one last and apart.
 */
function PhoneMenu({ account, childKey, handlers }: ActionsProps) {
  const [dialog, setDialog] = useState<MenuDialog | null>(null);
  const revoked = childKey.state === 'revoked';
  const control = (which: MenuDialog) => ({
    open: dialog === which,
    onOpenChange: (open: boolean) => setDialog(open ? which : null),
  });
  const editWord = childKey.kind === 'allocated_child' ? 'Set limit & expiry' : 'Set expiry';
  return (
    <>
      {/* Not modal: see export-menu.tsx (aria-hidden on #root would hide reachable buttons). */}
      <DropdownMenu.Root modal={false}>
        <DropdownMenu.Trigger asChild>
          <Button
            variant="ghost"
            className="min-h-11 min-w-11"
            aria-label={`Actions for ${childKey.name}`}
          >
            Actions <span aria-hidden="true">▾</span>
          </Button>
        </DropdownMenu.Trigger>
        <MenuContent>
          {!revoked && (
            <DropdownMenu.Item className={menuItemClass} onSelect={() => setDialog('edit')}>
              {editWord}
            </DropdownMenu.Item>
          )}
          {!revoked &&
            (childKey.disabled ? (
              <DropdownMenu.Item
                className={menuItemClass}
                disabled={handlers.togglingId === childKey.id}
                onSelect={() => handlers.onToggle(childKey)}
              >
                Enable
              </DropdownMenu.Item>
            ) : (
              <DropdownMenu.Item
                className={menuItemClass}
                disabled={handlers.togglingId === childKey.id}
                onSelect={() => setDialog('disable')}
              >
                Disable
              </DropdownMenu.Item>
            ))}
          <DropdownMenu.Item className={menuItemClass} onSelect={() => setDialog('history')}>
            History
          </DropdownMenu.Item>
          {!revoked && (
            <DropdownMenu.Item
              className={menuItemClass}
              onSelect={() => handlers.onRotate(childKey, childKey.profile)}
            >
              Rotate
            </DropdownMenu.Item>
          )}
          {!revoked && (
            <>
              <DropdownMenu.Separator className="my-1 h-px bg-zinc-200 dark:bg-zinc-700" />
              <DropdownMenu.Item
                className={`${menuItemClass} text-red-700 dark:text-red-300`}
                onSelect={() => setDialog('revoke')}
              >
                Revoke
              </DropdownMenu.Item>
            </>
          )}
        </MenuContent>
      </DropdownMenu.Root>
      {!revoked && (
        <EditChildKeyDialog account={account} childKey={childKey} control={control('edit')} />
      )}
      {!revoked && !childKey.disabled && (
        <DisableChildKeyDialog
          childKey={childKey}
          disabled={handlers.togglingId === childKey.id}
          onDisable={() => handlers.onToggle(childKey)}
          control={control('disable')}
        />
      )}
      <ChildKeyHistoryDialog account={account} childKey={childKey} control={control('history')} />
      {!revoked && (
        <RevokeChildKeyDialog
          account={account}
          childKey={childKey}
          onRevoked={handlers.onRevoked}
          control={control('revoke')}
        />
      )}
    </>
  );
}
