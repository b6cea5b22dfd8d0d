/**
 * The page's dialogs: a run's raw exchange, "Get code", and History. The gateway's address and
 * the profile's masked key come from the BFF (keys themselves never reach the browser).
 */
import type { CatalogModel } from '../../../../contract/workbench-api';
import { useHealth } from '../../../api/health';
import { useProfile } from '../../../app/profile-context';
import type { HistoryEntry } from '../history-store';
import type { RunRecord } from '../playground-types';
import type { CodeExport } from '../use-code-export';
import { CodeDialog } from './code-dialog';
import { HistoryDialog } from './history-dialog';
import { RawViewDialog } from './raw-view-dialog';

export interface PlaygroundDialogsProps {
  rawRun: RunRecord | null;
  onCloseRaw(): void;
  code: CodeExport;
  /** The catalog entry of the code's model; the chosen model's while nothing can be built. */
  codeModel: CatalogModel | undefined;
  historyOpen: boolean;
  onHistoryOpenChange(open: boolean): void;
  historyId: string;
  onOpenHistoryEntry(entry: HistoryEntry): void;
}

export function PlaygroundDialogs({
  rawRun,
  onCloseRaw,
  code,
  codeModel,
  historyOpen,
  onHistoryOpenChange,
  historyId,
  onOpenHistoryEntry,
}: PlaygroundDialogsProps) {
  const healthQuery = useHealth();
  const { profiles } = useProfile();
  const gatewayBaseUrl = healthQuery.data?.gateway_base_url ?? null;
  const maskedKey = rawRun
    ? (profiles.find((candidate) => candidate.name === rawRun.request.profile)?.masked_key ?? null)
    : null;
  return (
    <>
      <RawViewDialog
        run={rawRun}
        onClose={onCloseRaw}
        gatewayBaseUrl={gatewayBaseUrl}
        maskedKey={maskedKey}
      />
      <CodeDialog
        open={code.open}
        onOpenChange={(open) => {
          if (!open) code.close();
        }}
        subject={code.subject}
        gatewayBaseUrl={gatewayBaseUrl}
        model={codeModel}
      />
      <HistoryDialog
        open={historyOpen}
        onOpenChange={onHistoryOpenChange}
        currentId={historyId}
        onOpen={onOpenHistoryEntry}
      />
    </>
  );
}
