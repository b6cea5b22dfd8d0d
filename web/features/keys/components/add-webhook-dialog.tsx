import { Dialog } from 'radix-ui';
import { useId, useState, type FormEvent } from 'react';
import type { CreatedProfileWebhook } from '../../../../contract/workbench-api';
import type { Webhook } from '../../../../contract/webhooks';
import { useChangeWebhook } from '../api/change-webhook';
import { Button } from '../../../components/button';
import { CopyButton } from '../../../components/copy-button';
import { ErrorPanel } from '../../../components/error-panel';
import { TextField } from '../../../components/text-field';
import { useCreateWebhook } from '../api/create-webhook';
import {
  allWebhookEvents,
  checkWebhookForm,
  emptyWebhookForm,
  webhookEventLabels,
  webhookChangeOf,
  webhookFormOf,
  type WebhookFormErrors,
  type WebhookFormValues,
} from '../webhook-form';
import { useCloseGuard } from './close-guard';
import { DialogFrame } from './dialog-frame';

/** The new endpoint's signing secret, shown this once: nobody can show it again. */
function CreatedWebhookSecret({ created }: { created: CreatedProfileWebhook }) {
  const [copied, setCopied] = useState(false);
  useCloseGuard(!copied);
  return (
    // A region, not a live status: a screen reader should not read the secret aloud unasked.
    <section
      aria-label="Signing secret"
      className="flex flex-col gap-2 rounded-md border border-amber-300 bg-amber-50 p-3 text-sm text-amber-950 dark:border-amber-800 dark:bg-amber-950/40 dark:text-amber-50"
    >
      <p className="font-semibold">Endpoint added. Copy its signing secret now.</p>
      <p className="[overflow-wrap:anywhere]">
        Events for <span className="font-mono text-xs">{created.webhook.url}</span> are signed with
        it; your receiver checks the <span className="font-mono text-xs">webhook-signature</span>{' '}
        header with it.
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <code
          aria-label="Signing secret"
          className="font-mono text-xs [overflow-wrap:anywhere] select-all"
        >
          {created.secret}
        </code>
        <CopyButton
          text={created.secret}
          label="Copy the signing secret"
          onCopied={() => setCopied(true)}
        />
      </div>
      <p className="font-medium">
        You will not see this secret again: the workbench keeps no copy, and closing this dialog
        forgets it. If it is lost, delete the endpoint and add it again.
      </p>
    </section>
  );
}

function EventChoice({
  events,
  error,
  onChange,
}: {
  events: WebhookFormValues['events'];
  error: string | undefined;
  onChange(events: WebhookFormValues['events']): void;
}) {
  const id = useId();
  return (
    <fieldset
      className="flex flex-col gap-1 text-sm"
      aria-invalid={error ? true : undefined}
      aria-describedby={error ? `${id}-error` : undefined}
    >
      <legend className="mb-1 font-medium">Events</legend>
      <div className="grid grid-cols-1 gap-x-4 gap-y-1 sm:grid-cols-2">
        {allWebhookEvents.map((event) => (
          <label key={event} className="flex cursor-pointer items-center gap-2">
            <input
              type="checkbox"
              checked={events.includes(event)}
              onChange={(change) =>
                onChange(
                  change.target.checked
                    ? allWebhookEvents.filter((item) => item === event || events.includes(item))
                    : events.filter((item) => item !== event),
                )
              }
              className="accent-sky-700 dark:accent-sky-400"
            />
            {webhookEventLabels[event]}
            <span className="font-mono text-xs text-zinc-600 dark:text-zinc-400">{event}</span>
          </label>
        ))}
      </div>
      {error && (
        <p id={`${id}-error`} className="text-xs font-medium text-red-700 dark:text-red-300">
          {error}
        </p>
      )}
    </fieldset>
  );
}

/**
 * The endpoint form: a new endpoint (its secret shown once after), or, with `editing`, an
 * existing one changed in place: same URL, same secret.
 */
function WebhookForm({
  account,
  editing,
  onSaved,
}: {
  account: string;
  editing?: Webhook;
  onSaved?(): void;
}) {
  const [values, setValues] = useState(() => (editing ? webhookFormOf(editing) : emptyWebhookForm));
  const [errors, setErrors] = useState<WebhookFormErrors>({});
  const create = useCreateWebhook(account);
  const update = useChangeWebhook(account);
  const saving = editing ? update : create;
  const unitName = useId();

  function change<Field extends keyof WebhookFormValues>(
    field: Field,
    value: WebhookFormValues[Field],
  ) {
    setValues((current) => ({ ...current, [field]: value }));
    setErrors((current) => ({ ...current, [field]: undefined }));
    if (saving.isError) saving.reset();
  }

  function submit(event: FormEvent) {
    event.preventDefault();
    saving.reset();
    const checked = checkWebhookForm(values);
    if (!checked.ok) return setErrors(checked.errors);
    if (editing) {
      update.mutate(
        { id: editing.id, change: webhookChangeOf(checked.value) },
        { onSuccess: () => onSaved?.() },
      );
    } else create.mutate(checked.value);
  }

  if (create.data) {
    return (
      <>
        <CreatedWebhookSecret created={create.data} />
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
      <TextField
        label="URL"
        type="url"
        placeholder="https://example.com/hooks/gateway"
        value={values.url}
        onChange={(event) => change('url', event.target.value)}
        hint={
          editing
            ? 'The URL stays: a new one is a new endpoint, with its own secret.'
            : 'Your receiver. The gateway sends each event there as a signed POST.'
        }
        error={errors.url}
        autoComplete="off"
        readOnly={editing !== undefined}
      />
      <EventChoice
        events={values.events}
        error={errors.events}
        onChange={(events) => change('events', events)}
      />
      <fieldset className="flex flex-col gap-1 text-sm">
        <legend className="mb-1 font-medium">Balance low threshold</legend>
        <div className="flex flex-wrap gap-4">
          {(['usd', 'percent'] as const).map((unit) => (
            <label key={unit} className="flex cursor-pointer items-center gap-2">
              <input
                type="radio"
                name={unitName}
                checked={values.thresholdUnit === unit}
                onChange={() => change('thresholdUnit', unit)}
                className="accent-sky-700 dark:accent-sky-400"
              />
              {unit === 'usd' ? 'USD remaining' : '% of the limit remaining'}
            </label>
          ))}
        </div>
        <TextField
          label={values.thresholdUnit === 'usd' ? 'Threshold (USD)' : 'Threshold (%)'}
          inputMode="decimal"
          placeholder={values.thresholdUnit === 'usd' ? '1.00' : '10'}
          value={values.threshold}
          onChange={(event) => change('threshold', event.target.value)}
          hint="Balance low fires once when a key's remaining balance falls below this. Empty: the gateway's default."
          error={errors.threshold}
          autoComplete="off"
        />
      </fieldset>
      <TextField
        label="Expiring soon (days ahead)"
        inputMode="numeric"
        placeholder="3"
        value={values.expiringSoonDays}
        onChange={(event) => change('expiringSoonDays', event.target.value)}
        hint="Expiring soon fires this many days before a key expires. Empty: 3 days."
        error={errors.expiringSoonDays}
        autoComplete="off"
      />
      {saving.isError && (
        <ErrorPanel
          what={editing ? 'Saving the endpoint' : 'Adding the endpoint'}
          error={saving.error}
        />
      )}
      <div className="flex justify-end gap-2">
        <Dialog.Close asChild>
          <Button variant="ghost">Cancel</Button>
        </Dialog.Close>
        <Button type="submit" variant="primary" disabled={saving.isPending}>
          {editing
            ? saving.isPending
              ? 'Saving…'
              : 'Save'
            : saving.isPending
              ? 'Adding…'
              : 'Add endpoint'}
        </Button>
      </div>
    </form>
  );
}

/** `Add endpoint`: a notification endpoint of the account profile `account`. */
export function AddWebhookDialog({ account }: { account: string }) {
  return (
    <Dialog.Root>
      <Dialog.Trigger asChild>
        <Button variant="primary">Add endpoint</Button>
      </Dialog.Trigger>
      <DialogFrame
        width="wide"
        title="Add endpoint"
        description={`Where the gateway sends events about the keys of “${account}”.`}
      >
        <WebhookForm account={account} />
      </DialogFrame>
    </Dialog.Root>
  );
}

/** `Edit`: an endpoint's events and thresholds, changed in place; its secret stays. */
export function EditWebhookDialog({ account, webhook }: { account: string; webhook: Webhook }) {
  const [open, setOpen] = useState(false);
  return (
    <Dialog.Root open={open} onOpenChange={setOpen}>
      <Dialog.Trigger asChild>
        <Button size="small" variant="ghost" aria-label={`Edit ${webhook.url}`}>
          Edit
        </Button>
      </Dialog.Trigger>
      <DialogFrame
        width="wide"
        title="Edit endpoint"
        description="Its events and thresholds change at once; its URL and signing secret stay."
      >
        <WebhookForm account={account} editing={webhook} onSaved={() => setOpen(false)} />
      </DialogFrame>
    </Dialog.Root>
  );
}
