import { useMemo, useRef, useState } from 'react';
import type { ChildKey } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { EmptyState, LoadingState } from '../../../components/states';
import { useChildKeys } from '../../../api/child-keys';
import { useUpdateChildKey } from '../api/update-child-key';
import type { ChildKeyHandlers } from './child-key-actions';
import { ChildKeysTable } from './child-keys-table';
import { CreateChildKeyDialog } from './create-child-key-dialog';
import { RotateChildKeyDialog } from './rotate-child-key-dialog';

/**
 * An account profile's child keys: the table, `Create child key`, and each key's actions. New
 * keys' secrets stay with the workbench server, kept as profiles of their own.
 */
export function ChildKeysSection({ account }: { account: string }) {
  const childKeys = useChildKeys(account, true);
  const toggle = useUpdateChildKey(account);
  const [toggled, setToggled] = useState<ChildKey | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [rotating, setRotating] = useState<{
    childKey: ChildKey;
    holder: string | null;
  } | null>(null);
  const sectionRef = useRef<HTMLElement>(null);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const { mutate: mutateToggle } = toggle;

  const handlers = useMemo<ChildKeyHandlers>(
    () => ({
      onToggle: (key) => {
        setToggled(key);
        mutateToggle({ id: key.id, changes: { disabled: !key.disabled } });
      },
      togglingId: toggle.isPending ? (toggle.variables?.id ?? null) : null,
      onRevoked: (result) => setNotice(result.message),
      onRotate: (childKey, holder) => setRotating({ childKey, holder }),
    }),
    [mutateToggle, toggle.isPending, toggle.variables],
  );

  /** Back to the row's Rotate button when the key is still listed, else to the heading. */
  function focusAfterRotation(event: Event) {
    event.preventDefault();
    const id = rotating?.childKey.id;
    const button = id
      ? sectionRef.current?.querySelector<HTMLElement>(`[data-rotate-key="${CSS.escape(id)}"]`)
      : null;
    (button ?? headingRef.current)?.focus();
  }

  const data = childKeys.data;
  return (
    <section ref={sectionRef} aria-labelledby="child-keys-heading" className="flex flex-col gap-2">
      <div className="flex flex-wrap items-end justify-between gap-2">
        <div className="min-w-0">
          <h2
            id="child-keys-heading"
            ref={headingRef}
            tabIndex={-1}
            className="text-base font-semibold outline-none"
          >
            Child keys
          </h2>
          <p className="text-sm text-zinc-600 dark:text-zinc-400">
            Keys made by “{account}”, each with its own state and expiry. Their secrets stay with
            the workbench server.
          </p>
        </div>
        <CreateChildKeyDialog account={account} keysStore={data?.keys_store ?? null} />
      </div>
      {data && data.keys_store === null && (
        <p role="note" className="text-sm text-amber-900 dark:text-amber-200">
          Creating and rotating keys is off: the workbench server has nowhere to keep a new secret.
          {data.keys_store_advice ? ` ${data.keys_store_advice}` : ''}
        </p>
      )}
      {notice && (
        <div
          role="status"
          className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-zinc-200 bg-zinc-50 p-2 text-sm dark:border-zinc-800 dark:bg-zinc-900"
        >
          <span>{notice}</span>
          <Button size="small" variant="ghost" onClick={() => setNotice(null)}>
            Dismiss
          </Button>
        </div>
      )}
      {toggle.isError && toggled && (
        <ErrorPanel
          what={`${toggled.disabled ? 'Enabling' : 'Disabling'} “${toggled.name}”`}
          error={toggle.error}
        />
      )}
      {childKeys.isError && (
        <ErrorPanel
          what="Loading the child keys"
          error={childKeys.error}
          onRetry={() => void childKeys.refetch()}
        />
      )}
      {childKeys.isPending ? (
        <LoadingState>Loading the child keys…</LoadingState>
      ) : data && data.keys.length === 0 ? (
        <EmptyState title="No child keys yet">
          Create one to give a script or a colleague a key of its own, with its own limit and
          expiry.
        </EmptyState>
      ) : data ? (
        <ChildKeysTable account={account} keys={data.keys} handlers={handlers} />
      ) : null}
      <RotateChildKeyDialog
        account={account}
        rotating={rotating}
        onClose={() => setRotating(null)}
        onCloseAutoFocus={focusAfterRotation}
      />
    </section>
  );
}
