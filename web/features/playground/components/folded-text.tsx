/**
 * A long message folded to its start, behind "Show more" (and back with "Show less"), so a
 * pasted document does not make the page tens of thousands of pixels tall.
 */
import { useMemo, useState, type ReactNode } from 'react';
import { Button } from '../../../components/button';
import { foldedPreview, type LongTextLimits } from '../long-text';

export function FoldedText({
  text,
  limits,
  children,
}: {
  text: string;
  limits: LongTextLimits;
  /** Renders the text to show (whole, or its start). */
  children(shown: string): ReactNode;
}) {
  const [expanded, setExpanded] = useState(false);
  const preview = useMemo(() => foldedPreview(text, limits), [text, limits]);
  if (preview === null) return <>{children(text)}</>;
  const hidden = text.length - preview.length;
  return (
    <>
      {children(expanded ? text : `${preview}…`)}
      <p className="mt-1 flex flex-wrap items-center gap-2 text-xs text-zinc-500 dark:text-zinc-400">
        <Button size="small" onClick={() => setExpanded(!expanded)} aria-expanded={expanded}>
          {expanded ? 'Show less' : 'Show more'}
        </Button>
        {!expanded && (
          <span>
            {hidden.toLocaleString('en-US')} more characters ({text.length.toLocaleString('en-US')}{' '}
            in all)
          </span>
        )}
      </p>
    </>
  );
}
