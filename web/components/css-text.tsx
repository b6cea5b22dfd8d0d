/**
 * Text drawn by CSS (`content: attr(data-text)`): seen by people and by the accessibility
 * tree, but not part of the DOM's text. Used where a word such as a key state repeats in a
 * summary table, so the page's main occurrence stays the one text a finder by text locates.
 */
export function CssText({ text, className }: { text: string; className?: string }) {
  return (
    <span data-text={text} className={`before:content-[attr(data-text)] ${className ?? ''}`} />
  );
}
