import { Dialog } from 'radix-ui';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../../components/button';
import { DialogFooter } from '../../../components/dialog-footer';
import { ErrorPanel } from '../../../components/error-panel';
import { TextField } from '../../../components/text-field';
import { ApiRequestError } from '../../../lib/api-client';
import { useCreateChildKey } from '../api/create-child-key';
import { useHandOverChildKey } from '../api/hand-over-child-key';
import {
  checkCreateForm,
  createFormServerError,
  type ChildKeyKindChoice,
  type CreateFormValues,
  type FormErrors,
} from '../child-key-form';
import { CreatedChildKeySummary } from './created-child-key';
import { HandOverConfirmation, handOverConfirmationText } from './hand-over-confirmation';
import { HandedOverChildKeySummary } from './handed-over-child-key';
import { DialogFrame, DoneFooter } from './dialog-frame';
import { ExpiryField } from './expiry-field';
import { KindChoice } from './kind-choice';

const emptyForm: CreateFormValues = {
  kind: 'allocated_child',
  name: '',
  limit: '',
  expires: '',
  profileName: '',
};

/**
 * Where the new secret goes: kept by the workbench as a profile, or handed over (shown once,
 * kept nowhere), which takes an explicit confirmation.
 */
function SecretChoice({
  handOver,
  confirmed,
  confirmError,
  onHandOver,
  onConfirm,
}: {
  handOver: boolean;
  confirmed: boolean;
  confirmError: string | undefined;
  onHandOver(handOver: boolean): void;
  onConfirm(confirmed: boolean): void;
}) {
  const id = useId();
  const choices = [
    { handOver: false, label: 'Keep in the workbench' },
    { handOver: true, label: 'Hand over' },
  ];
  return (
    <fieldset className="flex flex-col gap-1 text-sm">
      <legend className="mb-1 font-medium">Secret</legend>
      <div className="flex flex-wrap gap-4">
        {choices.map((choice) => (
          <label key={choice.label} className="flex cursor-pointer items-center gap-2">
            <input
              type="radio"
              name={id}
              checked={handOver === choice.handOver}
              onChange={() => onHandOver(choice.handOver)}
              className="accent-sky-700 dark:accent-sky-400"
            />
            {choice.label}
          </label>
        ))}
      </div>
      {handOver && (
        <HandOverConfirmation confirmed={confirmed} error={confirmError} onConfirm={onConfirm} />
      )}
    </fieldset>
  );
}

function CreateForm({ account, keysStore }: { account: string; keysStore: string }) {
  const [values, setValues] = useState(emptyForm);
  const [errors, setErrors] = useState<FormErrors>({});
  const [handOver, setHandOver] = useState(false);
  const [confirmed, setConfirmed] = useState(false);
  const [confirmError, setConfirmError] = useState<string | undefined>();
  const keep = useCreateChildKey(account);
  const handOverKey = useHandOverChildKey(account);
  // The mutation of the choice made: its errors and progress are the ones shown.
  const create = handOver ? handOverKey : keep;
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
    const checked = checkCreateForm(handOver ? { ...values, profileName: '' } : values, Date.now());
    const unconfirmed = handOver && !confirmed;
    if (unconfirmed) setConfirmError(`Tick “${handOverConfirmationText}” to hand the key over.`);
    if (!checked.ok) return setErrors(checked.errors);
    if (unconfirmed) return;
    if (handOver) handOverKey.mutate({ ...checked.value, show_once: true });
    else keep.mutate(checked.value);
  }

  if (handOverKey.data) {
    return (
      <>
        <HandedOverChildKeySummary handed={handOverKey.data} />
        <DoneFooter />
      </>
    );
  }

  if (keep.data) {
    return (
      <>
        <CreatedChildKeySummary created={keep.data} />
        <DoneFooter />
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
      <SecretChoice
        handOver={handOver}
        confirmed={confirmed}
        confirmError={confirmError}
        onHandOver={(value) => {
          setHandOver(value);
          keep.reset();
          handOverKey.reset();
        }}
        onConfirm={(value) => {
          setConfirmed(value);
          setConfirmError(undefined);
        }}
      />
      {handOver ? (
        <p className="rounded-md bg-zinc-50 p-2 text-xs text-zinc-700 dark:bg-zinc-900 dark:text-zinc-300">
          The new key is shown once, in full, for you to copy; no workbench profile holds it and the
          workbench keeps no copy.
        </p>
      ) : (
        <>
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
            <span className="[overflow-wrap:anywhere]">{keysStore}</span>. This page only ever shows
            it masked.
          </p>
        </>
      )}
      {create.isError && !serverError && (
        <ErrorPanel what="Creating the child key" error={create.error} />
      )}
      <DialogFooter>
        <Dialog.Close asChild>
          <Button variant="ghost">Cancel</Button>
        </Dialog.Close>
        <Button type="submit" variant="primary" disabled={create.isPending}>
          {create.isPending ? 'Creating…' : 'Create'}
        </Button>
      </DialogFooter>
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
