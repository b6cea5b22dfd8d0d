/** Code with highlighting and a copy button. */
import { CopyButton } from '../../../components/copy-button';
import { MarkdownContent } from './markdown-content';

/** A Markdown fence longer than any backtick run inside the code, so the code cannot end it. */
export function fenced(code: string, language: string): string {
  const longestRun = Math.max(0, ...Array.from(code.matchAll(/`+/g), (match) => match[0].length));
  const fence = '`'.repeat(Math.max(3, longestRun + 1));
  return `${fence}${language}\n${code}\n${fence}`;
}

/** Highlighting very long text (a pasted image's data URL) costs more than it helps. */
const highlightLimit = 60_000;

export function CodeBlock({
  code,
  language,
  copyLabel,
  wrap = false,
}: {
  code: string;
  language: string;
  copyLabel: string;
  /** Wrap long lines (stream events) instead of scrolling sideways (code). */
  wrap?: boolean;
}) {
  return (
    <div className={wrap ? 'playground-wrap relative' : 'relative'}>
      <div className="absolute top-1.5 right-1.5 z-10">
        <CopyButton text={code} label={copyLabel} />
      </div>
      {code.length > highlightLimit ? (
        <pre className="playground-code" tabIndex={0}>
          {code}
        </pre>
      ) : (
        <MarkdownContent text={fenced(code, language)} />
      )}
    </div>
  );
}
