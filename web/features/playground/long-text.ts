/**
 * Where a long message is cut for its collapsed view: a pasted 162,000-character document made
 * the page 24,800 px tall. Cut at whichever comes first of a character and a line limit, at a
 * space when one is near, so the preview ends on a whole word.
 */
export interface LongTextLimits {
  characters: number;
  lines: number;
}

/** A person's message: a screenful. */
export const messageLimits: LongTextLimits = { characters: 3_000, lines: 40 };
/** A model's reply: long answers are the point, so only a very long one folds. */
export const replyLimits: LongTextLimits = { characters: 12_000, lines: 200 };

/** The start of `text` to show folded, or null when it is short enough to show whole. */
export function foldedPreview(text: string, limits: LongTextLimits): string | null {
  let cut = Math.min(text.length, limits.characters);
  let newlines = 0;
  for (let index = 0; index < cut; index += 1) {
    if (text[index] === '\n' && (newlines += 1) === limits.lines) {
      cut = index;
      break;
    }
  }
  if (cut >= text.length) return null;
  const space = text.lastIndexOf(' ', cut);
  if (space > cut * 0.8) cut = space;
  return text.slice(0, cut);
}
