/**
 * A reply as Markdown (GitHub flavour) with highlighted code. react-markdown renders no raw
 * HTML, so a model's output cannot inject markup into the page.
 */
import { memo, useMemo, type ComponentProps } from 'react';
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { CopyButton } from '../../../components/copy-button';
import { rehypeCodeHighlight, textOf, type HastNode } from './rehype-code-highlight';

type Components = NonNullable<ComponentProps<typeof Markdown>['components']>;

/** Numbers each `<pre>` in document order, so its copy button can say which block it copies. */
function rehypeNumberCodeBlocks() {
  return (tree: HastNode) => {
    let count = 0;
    const visit = (node: HastNode) => {
      if (node.type === 'element' && node.tagName === 'pre') {
        count += 1;
        node.properties = { ...node.properties, dataCodeBlock: count };
      }
      for (const child of node.children ?? []) visit(child);
    };
    visit(tree);
  };
}

const remarkPlugins = [remarkGfm];
// Only fenced code with a language is highlighted; guessing is slow on long streams.
const rehypePlugins: Parameters<typeof Markdown>[0]['rehypePlugins'] = [
  rehypeCodeHighlight,
  rehypeNumberCodeBlocks,
];

export const MarkdownContent = memo(function MarkdownContent({
  text,
  codeCopyLabel,
}: {
  text: string;
  /**
   * What the text is ("turn 3"): with it, each code block gets a copy button named
   * "Copy code block 1 of turn 3". Without it (code the page shows with its own button), none.
   */
  codeCopyLabel?: string;
}) {
  // Stable between renders: a new `pre` component would remount the blocks on every token.
  const components = useMemo<Components>(
    () => ({
      pre({ node, children, ...props }) {
        // A long line scrolls the block sideways: focusable, so a keyboard can scroll it too
        // (axe's scrollable-region-focusable, WCAG 2.1.1).
        const block = (
          <pre {...props} tabIndex={0}>
            {children}
          </pre>
        );
        if (codeCopyLabel === undefined) return block;
        const number = Number(node?.properties.dataCodeBlock ?? 0);
        // The text node ending the fence's last line is not part of the code.
        const code = node ? textOf(node as HastNode).replace(/\n$/, '') : '';
        return (
          <div className="relative">
            <div className="absolute top-1.5 right-1.5 z-10">
              <CopyButton text={code} label={`Copy code block ${number} of ${codeCopyLabel}`} />
            </div>
            {block}
          </div>
        );
      },
    }),
    [codeCopyLabel],
  );
  return (
    <div className="playground-markdown min-w-0 text-sm leading-relaxed break-words">
      <Markdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins} components={components}>
        {text}
      </Markdown>
    </div>
  );
});
