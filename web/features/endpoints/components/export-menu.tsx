import { DropdownMenu } from 'radix-ui';
import { MenuContent } from '../../../components/menu-content';
import { useState } from 'react';
import type { ChecksReport } from '../../../../contract/workbench-api';
import { Button } from '../../../components/button';
import { reportToJson, reportToMarkdown } from '../checks-report';

function download(fileName: string, text: string, type: string) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.click();
  // Let the download start before the URL goes away.
  window.setTimeout(() => URL.revokeObjectURL(url), 1000);
}

const itemClass =
  'cursor-default rounded px-2 py-1.5 text-sm outline-none select-none data-[highlighted]:bg-sky-100 dark:data-[highlighted]:bg-sky-900';

/** Export of the results for a support message, as Markdown or JSON, copied or downloaded. */
export function ExportMenu({
  report,
  maskedKey,
  gatewayBaseUrl,
}: {
  report: ChecksReport;
  maskedKey: string | undefined;
  gatewayBaseUrl: string | undefined;
}) {
  const [status, setStatus] = useState('');
  const context = { maskedKey, gatewayBaseUrl };
  const baseName = `endpoint-checks-${report.profile}`;

  async function copy(kind: string, text: string) {
    try {
      await navigator.clipboard.writeText(text);
      setStatus(`${kind} copied to the clipboard.`);
    } catch {
      setStatus(`Could not copy the ${kind}; use the download instead.`);
    }
  }

  return (
    <div className="flex items-center gap-2">
      {/* Not modal: a modal Radix menu sets aria-hidden on #root, whose buttons stay reachable
          by Tab (axe's aria-hidden-focus). The menu still closes on Esc and on a click outside. */}
      <DropdownMenu.Root modal={false}>
        <DropdownMenu.Trigger asChild>
          <Button>
            Export results <span aria-hidden="true">▾</span>
          </Button>
        </DropdownMenu.Trigger>
        <MenuContent>
          <DropdownMenu.Item
            className={itemClass}
            onSelect={() => void copy('Markdown', reportToMarkdown(report, context))}
          >
            Copy as Markdown
          </DropdownMenu.Item>
          <DropdownMenu.Item
            className={itemClass}
            onSelect={() =>
              download(`${baseName}.md`, reportToMarkdown(report, context), 'text/markdown')
            }
          >
            Download Markdown
          </DropdownMenu.Item>
          <DropdownMenu.Separator className="my-1 h-px bg-zinc-200 dark:bg-zinc-700" />
          <DropdownMenu.Item
            className={itemClass}
            onSelect={() => void copy('JSON', reportToJson(report, context))}
          >
            Copy as JSON
          </DropdownMenu.Item>
          <DropdownMenu.Item
            className={itemClass}
            onSelect={() =>
              download(`${baseName}.json`, reportToJson(report, context), 'application/json')
            }
          >
            Download JSON
          </DropdownMenu.Item>
        </MenuContent>
      </DropdownMenu.Root>
      <span role="status" className="text-xs text-zinc-600 dark:text-zinc-400">
        {status}
      </span>
    </div>
  );
}
