/**
 * A reply as Markdown (GitHub flavour) with highlighted code. react-markdown renders no raw
 * HTML, so a model's output cannot inject markup into the page.
 */
import { memo } from 'react';
import Markdown from 'react-markdown';
import remarkGfm from 'remark-gfm';
import { rehypeCodeHighlight } from './rehype-code-highlight';

const remarkPlugins = [remarkGfm];
// Only fenced code with a language is highlighted; guessing is slow on long streams.
const rehypePlugins: Parameters<typeof Markdown>[0]['rehypePlugins'] = [rehypeCodeHighlight];

export const MarkdownContent = memo(function MarkdownContent({ text }: { text: string }) {
  return (
    <div className="playground-markdown min-w-0 text-sm leading-relaxed break-words">
      <Markdown remarkPlugins={remarkPlugins} rehypePlugins={rehypePlugins}>
        {text}
      </Markdown>
    </div>
  );
});
