/**
 * Models a key may use (`allowed_models`): ids and patterns where `*` stands for any run of
 * characters (`anthropic/*`, `sim/chat-*`, `*:free`). One home for the gateway, which enforces
 * them, and the workbench, which shows only what a profile may use.
 */

/** Longest list a key may carry, and longest entry: enough for any team, bounded for the hot path. */
export const MAX_ALLOWED_MODELS = 100;
export const MAX_MODEL_PATTERN_LENGTH = 200;

/** What an entry may hold: a model id's characters, and `*`. */
const patternCharacters = /^[A-Za-z0-9._:/@*-]+$/;

/** Why an entry is not a pattern, or null when it is one. */
export function patternProblem(pattern: string): string | null {
  if (pattern.length === 0) return 'an empty entry';
  if (pattern.length > MAX_MODEL_PATTERN_LENGTH)
    return `an entry longer than ${MAX_MODEL_PATTERN_LENGTH} characters`;
  if (!patternCharacters.test(pattern))
    return `"${pattern}", which holds characters no model id has (use letters, digits, . _ : / @ - and *)`;
  return null;
}

const compiled = new Map<string, RegExp>();

/** Whether `text` is matched by `pattern` (`*`: any run of characters, none included). */
export function patternMatches(pattern: string, text: string): boolean {
  if (!pattern.includes('*')) return pattern === text;
  let expression = compiled.get(pattern);
  if (!expression) {
    const body = pattern
      .split('*')
      .map((part) => part.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&'))
      .join('.*');
    expression = new RegExp(`^${body}$`, 's');
    if (compiled.size < 10_000) compiled.set(pattern, expression);
  }
  return expression.test(text);
}

/** Whether a list allows a model: null or empty allows every model. */
export function listAllows(list: readonly string[] | null | undefined, modelId: string): boolean {
  return !list || list.length === 0 || list.some((pattern) => patternMatches(pattern, modelId));
}

/**
 * The entries of `child` that `parent` does not cover, so a child cannot widen its parent's list
 * (a child without a list of its own uses its parent's). An entry is covered when a parent
 * pattern matches it as written: every `*` of the child's then falls inside a `*` of the
 * parent's, so whatever it matches, the parent's matches too.
 */
export function entriesBeyond(
  child: readonly string[],
  parent: readonly string[] | null | undefined,
): string[] {
  if (!parent || parent.length === 0) return [];
  return child.filter((entry) => !parent.some((pattern) => patternMatches(pattern, entry)));
}

/** Whether a key whose own list and parent's list are these may use a model: both must allow it. */
export const keyAllows = (
  own: readonly string[] | null | undefined,
  parents: readonly string[] | null | undefined,
  modelId: string,
): boolean => listAllows(own, modelId) && listAllows(parents, modelId);
