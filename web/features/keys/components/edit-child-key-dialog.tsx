import { Dialog } from 'radix-ui';
import { useState, type FormEvent } from 'react';
import type { ChildKey } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { DialogFooter } from '../../../components/dialog-footer';
import { ErrorPanel } from '../../../components/error-panel';
import { TextField } from '../../../components/text-field';
import { useUpdateChildKey } from '../api/update-child-key';
import { checkEditForm, editFormValuesOf, type FormErrors } from '../child-key-form';
import { DialogFrame, type OpenControl, useOpenState } from './dialog-frame';
import { ExpiryField } from './expiry-field';

function EditForm({
  account,
  childKey,
  onDone,
}: {
  account: string;
  childKey: ChildKey;
  onDone(): void;
}) {
  const [values, setValues] = useState(() => editFormValuesOf(childKey));
  const [errors, setErrors] = useState<FormErrors>({});
  const [unchanged, setUnchanged] = useState(false);
  const update = useUpdateChildKey(account);
  const allocated = childKey.kind === 'allocated_child';

  function change(field: keyof typeof values, value: string) {
    setValues((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
    setUnchanged(false);
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    const checked = checkEditForm(childKey, values, Date.now());
    if (!checked.ok) return setErrors(checked.errors);
    if (Object.keys(checked.value).length === 0) return setUnchanged(true);
    update.mutate({ id: childKey.id, changes: checked.value }, { onSuccess: onDone });
  }

  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-3">
      {allocated && (
        <TextField
          label="Limit (USD)"
          inputMode="decimal"
          value={values.limit}
          onChange={(event) => change('limit', event.target.value)}
          hint="Raising it takes the difference from this account’s balance; lowering it gives back what the key has not spent."
          error={errors.limit}
          autoComplete="off"
        />
      )}
      <ExpiryField
        value={values.expires}
        onChange={(value) => change('expires', value)}
        error={errors.expires}
      />
      <TextField
        label="Name"
        value={values.name}
        onChange={(event) => change('name', event.target.value)}
        error={errors.name}
        autoComplete="off"
      />
      {unchanged && (
        <p role="status" className="text-sm">
          Nothing changed: there is nothing to save.
        </p>
      )}
      {update.isError && <ErrorPanel what={`Saving “${childKey.name}”`} error={update.error} />}
      <DialogFooter>
        <Dialog.Close asChild>
          <Button variant="ghost">Cancel</Button>
        </Dialog.Close>
        <Button type="submit" variant="primary" disabled={update.isPending}>
          {update.isPending ? 'Saving…' : 'Save'}
        </Button>
      </DialogFooter>
    </form>
  );
}

/**
 * `Set limit & expiry` (`Set expiry` for a shared child, which has no limit of its own): a
 * child key's limit and expiry, and its name.
 */
export function EditChildKeyDialog({
  account,
  childKey,
  control,
}: {
  account: string;
  childKey: ChildKey;
  control?: OpenControl;
}) {
  const [open, setOpen] = useOpenState(control);
  const allocated = childKey.kind === 'allocated_child';
  const action = allocated ? 'Set limit & expiry' : 'Set expiry';
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      {!control && (
        <Dialog.Trigger asChild>
          <Button size="small" variant="ghost" aria-label={`${action} of ${childKey.name}`}>
            {action}
          </Button>
        </Dialog.Trigger>
      )}
      <DialogFrame
        title={`${allocated ? 'Limit and expiry' : 'Expiry'} of “${childKey.name}”`}
        description={
          allocated
            ? 'Its limit, expiry and name.'
            : 'Its expiry and name. A shared child spends this account’s balance: to cap its spending, set a limit on the account.'
        }
      >
        <EditForm account={account} childKey={childKey} onDone={() => setOpen(false)} />
      </DialogFrame>
    </Dialog.Root>
  );
}
