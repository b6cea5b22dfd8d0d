import { Dialog } from 'radix-ui';
import { useState, type FormEvent } from 'react';
import { Button } from '../../../components/button';
import { ErrorPanel } from '../../../components/error-panel';
import { TextField } from '../../../components/text-field';
import { ApiRequestError } from '../../../lib/api-client';
import { useCreateChildKey } from '../api/create-child-key';
import {
  checkCreateForm,
  createFormServerError,
  type ChildKeyKindChoice,
  type CreateFormValues,
  type FormErrors,
} from '../child-key-form';
import { CreatedChildKeySummary } from './created-child-key';
import { DialogFrame } from './dialog-frame';
import { ExpiryField } from './expiry-field';
import { KindChoice } from './kind-choice';

const emptyForm: CreateFormValues = {
  kind: 'allocated_child',
  name: '',
  limit: '',
  expires: '',
  profileName: '',
};

function CreateForm({ account, keysStore }: { account: string; keysStore: string }) {
  const [values, setValues] = useState(emptyForm);
  const [errors, setErrors] = useState<FormErrors>({});
  const create = useCreateChildKey(account);
  // A refusal that names a field is shown at that field, under its label; it concerns the values
  // sent, so it goes as soon as the form changes or is sent again.
  const serverError =
    create.error instanceof ApiRequestError
      ? createFormServerError(create.error.message, create.error.field)
      : null;
  const errorOf = (field: keyof FormErrors) =>
    errors[field] ?? (serverError?.field === field ? serverError.message : undefined);

  function change<Field extends keyof CreateFormValues>(
    field: Field,
    value: CreateFormValues[Field],
  ) {
    setValues((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
    if (create.isError) create.reset();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    create.reset();
    const checked = checkCreateForm(values, Date.now());
    if (!checked.ok) return setErrors(checked.errors);
    create.mutate(checked.value);
  }

  if (create.data) {
    return (
      <>
        <CreatedChildKeySummary created={create.data} />
        <div className="flex justify-end">
          <Dialog.Close asChild>
            <Button variant="primary">Done</Button>
          </Dialog.Close>
        </div>
      </>
    );
  }

  return (
    <form noValidate onSubmit={submit} className="flex flex-col gap-3">
      <KindChoice
        value={values.kind}
        onChange={(kind: ChildKeyKindChoice) => change('kind', kind)}
      />
      <TextField
        label="Name"
        value={values.name}
        onChange={(event) => change('name', event.target.value)}
        hint="Who or what uses it, e.g. “nightly-report”."
        error={errorOf('name')}
        autoComplete="off"
      />
      {values.kind === 'allocated_child' && (
        <TextField
          label="Limit (USD)"
          inputMode="decimal"
          placeholder="5.00"
          value={values.limit}
          onChange={(event) => change('limit', event.target.value)}
          hint="Taken from this account’s balance now; what the key does not spend comes back when it is revoked."
          error={errorOf('limit')}
          autoComplete="off"
        />
      )}
      <ExpiryField
        value={values.expires}
        onChange={(value) => change('expires', value)}
        error={errorOf('expires')}
      />
      <TextField
        label="Profile name (optional)"
        value={values.profileName}
        onChange={(event) => change('profileName', event.target.value)}
        hint="The workbench profile that holds the secret, as the Key picker lists it. Left empty, the server names it after the key."
        error={errorOf('profileName')}
        autoComplete="off"
      />
      <p className="rounded-md bg-zinc-50 p-2 text-xs text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">
        The new key’s secret is kept by the workbench server in{' '}
        <span className="[overflow-wrap:anywhere]">{keysStore}</span>. This page only ever shows it
        masked.
      </p>
      {create.isError && !serverError && (
        <ErrorPanel what="Creating the child key" error={create.error} />
      )}
      <div className="flex justify-end gap-2">
        <Dialog.Close asChild>
          <Button variant="ghost">Cancel</Button>
        </Dialog.Close>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create'}
        </Button>
      </div>
    </form>
  );
}

/** `Create child key`: an allocated or shared child of the account profile `account`. */
export function CreateChildKeyDialog({
  account,
  keysStore,
}: {
  account: string;
  /** Where the server keeps new secrets; null when it cannot keep any (creating is refused). */
  keysStore: string | null;
}) {
  return (
    <Dialog.Root>
      <Dialog.Trigger asChild>
        <Button variant="primary" disabled={keysStore === null}>
          Create child key
        </Button>
      </Dialog.Trigger>
      <DialogFrame
        title="Create child key"
        description={`A new key under the account profile “${account}”, with its own name, state and expiry.`}
      >
        {keysStore !== null && <CreateForm account={account} keysStore={keysStore} />}
      </DialogFrame>
    </Dialog.Root>
  );
}
