import { render } from '@testing-library/react';
import { MarkdownContent } from './markdown-content';
import { highlightedLanguages } from './rehype-code-highlight';

describe('replies as Markdown', () => {
  it('highlights fenced code in the languages Get code uses, and leaves others plain', () => {
    const { container } = render(
      <MarkdownContent
        text={
          '```ts\nconst answer: number = 42;\n```\n\n```ruby\nputs "hi"\n```\n\n```\nno language\n```'
        }
      />,
    );
    const blocks = container.querySelectorAll('pre > code');
    expect(blocks).toHaveLength(3);
    expect(blocks[0]!.classList).toContain('hljs');
    expect(blocks[0]!.querySelector('.hljs-keyword')?.textContent).toBe('const');
    expect(blocks[0]!.textContent).toBe('const answer: number = 42;\n');
    expect(blocks[1]!.querySelector('[class^="hljs-"]')).toBeNull();
    expect(blocks[2]!.querySelector('[class^="hljs-"]')).toBeNull();
  });

  it('carries only the grammars it needs', () => {
    expect([...highlightedLanguages].sort()).toEqual([
      'bash',
      'javascript',
      'json',
      'python',
      'typescript',
    ]);
  });
});
