/**
 * Tools of the Responses form that other forms do not have, carried as plain functions: a
 * namespaced function as `<namespace>__<name>` (function names allow letters, digits, `_` and
 * `-`), a custom (free-form) tool as a function of one string argument. The answer's calls are
 * turned back into the caller's own kinds here, from the tools the request declared.
 */
import type { ResponsesTool } from './request-schema';

const SEPARATOR = '__';

export const functionNameOf = (namespace: string, name: string) =>
  `${namespace}${SEPARATOR}${name}`;

export type ToolKinds = {
  custom: Set<string>;
  /** Flattened name → its namespace and own name. */
  namespaced: Map<string, { namespace: string; name: string }>;
};

export function toolKinds(tools: ResponsesTool[] | null | undefined): ToolKinds {
  const kinds: ToolKinds = { custom: new Set(), namespaced: new Map() };
  for (const tool of tools ?? []) {
    if (tool.type === 'custom') kinds.custom.add((tool as { name: string }).name);
    if (tool.type === 'namespace') {
      const namespace = tool as { name: string; tools: Array<{ name: string }> };
      for (const fn of namespace.tools) {
        kinds.namespaced.set(functionNameOf(namespace.name, fn.name), {
          namespace: namespace.name,
          name: fn.name,
        });
      }
    }
  }
  return kinds;
}
