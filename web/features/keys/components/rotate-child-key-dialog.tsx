import { Dialog } from 'radix-ui';
import { useState } from 'react';
import type { ChildKey } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { DialogFooter } from '../../../components/dialog-footer';
import { ErrorPanel } from '../../../components/error-panel';
import { LoadingState } from '../../../components/states';
import { formatUsd } from '../../../lib/format';
import { useHandOverRotation } from '../api/hand-over-rotation';
import { useRotationEstimate } from '../api/rotation-estimate';
import { useRotation } from '../use-rotation';
import { DialogFrame, DoneFooter } from './dialog-frame';
import { HandOverConfirmation, handOverConfirmationText } from './hand-over-confirmation';
import { HandedOverChildKeySummary } from './handed-over-child-key';
import { RotationOutcome } from './rotation-outcome';
import { RotationSteps } from './rotation-steps';

function RotationFlow({
  account,
  childKey,
  holder,
  onRunningChange,
}: {
  account: string;
  childKey: ChildKey;
  holder: string;
  onRunningChange(running: boolean): void;
}) {
  const estimate = useRotationEstimate(account, childKey.id, true);
  const { progress, start } = useRotation(account, childKey.id);
  const running = progress.phase === 'running';

  async function run() {
    if (!estimate.data) return;
    onRunningChange(true);
    try {
      await start({ profile: holder, model: estimate.data.model });
    } finally {
      onRunningChange(false);
    }
  }

  return (
    <>
      {progress.phase === 'idle' &&
        (estimate.isPending ? (
          <LoadingState>Estimating the cost of step 3…</LoadingState>
        ) : estimate.isError ? (
          <ErrorPanel
            what="Estimating the cost of step 3"
            error={estimate.error}
            onRetry={() => void estimate.refetch()}
          />
        ) : (
          <p className="rounded-md bg-zinc-50 p-3 text-sm dark:bg-zinc-900">
            Step 3 sends one real, billed request with the new key: its estimated cost is shown with
            the step.{estimate.data.note && <> {estimate.data.note}</>}
          </p>
        ))}
      <div aria-live="polite">
        <RotationSteps steps={progress.steps} estimate={estimate.data ?? null} />
      </div>
      <RotationOutcome progress={progress} />
      <DialogFooter>
        <Dialog.Close asChild>
          <Button variant="ghost" disabled={running}>
            {progress.phase === 'idle' ? 'Cancel' : 'Close'}
          </Button>
        </Dialog.Close>
        {progress.phase !== 'finished' && (
          <Button variant="primary" disabled={!estimate.data || running} onClick={() => void run()}>
            {running
              ? 'Rotating…'
              : estimate.data
                ? `Start rotation (≈ ${formatUsd(estimate.data.estimated_cost_usd)})`
                : 'Start rotation'}
          </Button>
        )}
      </DialogFooter>
    </>
  );
}

/**
 * The rotation of a key no profile holds (one handed over before): the gateway gives it a new
 * secret at once, and the new key is handed over, behind the same confirmation as a new one.
 */
function HandOverRotationFlow({
  account,
  childKey,
  onRunningChange,
}: {
  account: string;
  childKey: ChildKey;
  onRunningChange(running: boolean): void;
}) {
  const [confirmed, setConfirmed] = useState(false);
  const [confirmError, setConfirmError] = useState<string | undefined>();
  const rotation = useHandOverRotation(account, childKey.id);

  function run() {
    if (!confirmed) {
      setConfirmError(`Tick “${handOverConfirmationText}” to hand the new key over.`);
      return;
    }
    onRunningChange(true);
    rotation.mutate(undefined, { onSettled: () => onRunningChange(false) });
  }

  if (rotation.data) {
    return (
      <>
        <HandedOverChildKeySummary handed={rotation.data} action="Rotated" />
        <DoneFooter />
      </>
    );
  }
  return (
    <>
      <div className="flex flex-col gap-1">
        <HandOverConfirmation
          confirmed={confirmed}
          error={confirmError}
          onConfirm={(value) => {
            setConfirmed(value);
            if (value) setConfirmError(undefined);
          }}
        />
      </div>
      {rotation.isError && (
        <ErrorPanel what="Rotating the key" error={rotation.error} onRetry={run} />
      )}
      <div className="flex justify-end gap-2">
        <Dialog.Close asChild>
          <Button variant="ghost" disabled={rotation.isPending}>
            Cancel
          </Button>
        </Dialog.Close>
        <Button variant="primary" disabled={rotation.isPending} onClick={run}>
          {rotation.isPending ? 'Rotating…' : 'Rotate and hand over'}
        </Button>
      </div>
    </>
  );
}

/**
 * `Rotate`: for a key a profile holds, the four steps (create, repoint, verify, revoke) as one
 * guided flow, each step's outcome shown as it happens; for a key no profile holds, a new secret
 * handed over. Opened from a row but held by the section: the rotated key's row goes away when
 * the old key is revoked, and the dialog must stay to show the outcome.
 */
export function RotateChildKeyDialog({
  account,
  rotating,
  onClose,
  onCloseAutoFocus,
}: {
  account: string;
  /**
   * The key being rotated, with the profile holding it (null: none, so the new key is handed
   * over); null while the dialog is shut.
   */
  rotating: { childKey: ChildKey; holder: string | null } | null;
  onClose(): void;
  /** Where the focus goes once the dialog closes (it has no trigger of its own). */
  onCloseAutoFocus(event: Event): void;
}) {
  const [running, setRunning] = useState(false);
  const keepOpen = (event: Event) => {
    if (running) event.preventDefault();
  };
  return (
    <Dialog.Root
      open={rotating !== null}
      onOpenChange={(next) => {
        // A rotation under way is not left half-seen: the dialog stays until it ends.
        if (!next && !running) onClose();
      }}
    >
      {rotating && (
        <DialogFrame
          width="wide"
          title={`Rotate “${rotating.childKey.name}”`}
          description={
            rotating.holder === null ? (
              <>
                Gives <span className="font-mono">{rotating.childKey.key}</span> a new secret: the
                old one stops working at once. No workbench profile holds this key, so the new key
                is handed over: shown once here, with Copy, and kept nowhere.
              </>
            ) : (
              <>
                Gives <span className="font-mono">{rotating.childKey.key}</span> a new secret in
                four steps. The profile “{rotating.holder}” moves to the new key; the new key never
                reaches this browser.
              </>
            )
          }
          onEscapeKeyDown={keepOpen}
          onInteractOutside={keepOpen}
          onCloseAutoFocus={onCloseAutoFocus}
        >
          {rotating.holder === null ? (
            <HandOverRotationFlow
              account={account}
              childKey={rotating.childKey}
              onRunningChange={setRunning}
            />
          ) : (
            <RotationFlow
              account={account}
              childKey={rotating.childKey}
              holder={rotating.holder}
              onRunningChange={setRunning}
            />
          )}
        </DialogFrame>
      )}
    </Dialog.Root>
  );
}
