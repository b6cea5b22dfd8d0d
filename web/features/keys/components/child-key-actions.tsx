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
  const revoked = childKey.state === 'revoked';
  const holder = childKey.profile;
  return (
    // A row that wraps: on a phone it fills the width under the key's figures.
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
