/**
 * Highlights fenced code in replies, for the few languages the workbench shows (those of
 * `Get code`, and JSON): a small rehype plugin over lowlight's core with only those grammars, so
 * the bundle does not carry highlight.js's three dozen "common" languages. Code in any other
 * language, or without one, stays plain.
 */
import bash from 'highlight.js/lib/languages/bash';
import javascript from 'highlight.js/lib/languages/javascript';
import json from 'highlight.js/lib/languages/json';
import python from 'highlight.js/lib/languages/python';
import typescript from 'highlight.js/lib/languages/typescript';
import { createLowlight } from 'lowlight';

const lowlight = createLowlight({ bash, javascript, json, python, typescript });
lowlight.registerAlias({
  bash: ['sh', 'shell', 'zsh', 'curl'],
  javascript: ['js', 'mjs', 'jsx'],
  typescript: ['ts', 'tsx'],
  python: ['py'],
});

export type HastNode = {
  type: string;
  tagName?: string;
  value?: string;
  properties?: Record<string, unknown>;
  children?: HastNode[];
};

/** The plain text under a node: the code itself, without the highlighting's spans. */
export const textOf = (node: HastNode): string =>
  node.type === 'text' ? (node.value ?? '') : (node.children ?? []).map(textOf).join('');

function languageOf(node: HastNode): string | null {
  const classes = node.properties?.className;
  if (!Array.isArray(classes)) return null;
  for (const name of classes) {
    if (typeof name === 'string' && name.startsWith('language-'))
      return name.slice('language-'.length);
  }
  return null;
}

function highlightWithin(node: HastNode, parent: HastNode | null): void {
  if (node.type === 'element' && node.tagName === 'code' && parent?.tagName === 'pre') {
    const language = languageOf(node);
    if (language && lowlight.registered(language)) {
      node.children = lowlight.highlight(language, textOf(node)).children as HastNode[];
      const classes = (node.properties?.className as string[] | undefined) ?? [];
      node.properties = { ...node.properties, className: [...classes, 'hljs'] };
    }
    return;
  }
  for (const child of node.children ?? []) highlightWithin(child, node);
}

export function rehypeCodeHighlight() {
  return (tree: HastNode) => highlightWithin(tree, null);
}

/** The languages highlighted, for tests and the README. */
export const highlightedLanguages = lowlight.listLanguages();
