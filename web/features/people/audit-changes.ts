/**
 * What an audit entry changed, in short lines: `limit_usd: 5 → 3` for each field whose value
 * differs between before and after (nested fields by their path), or `field: value` for what a
 * creation set and a removal took away.
 */
function flatten(value: unknown, prefix = '', into = new Map<string, string>()) {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [name, inner] of Object.entries(value)) {
      flatten(inner, prefix ? `${prefix}.${name}` : name, into);
    }
  } else if (prefix !== '') {
    into.set(prefix, Array.isArray(value) ? value.join(', ') || '[]' : String(value));
  } else if (value !== null && value !== undefined) {
    into.set('value', String(value));
  }
  return into;
}

export function changeLines(before: unknown, after: unknown): string[] {
  const old = flatten(before);
  const next = flatten(after);
  const paths = [...new Set([...old.keys(), ...next.keys()])];
  const lines: string[] = [];
  for (const path of paths) {
    const from = old.get(path);
    const to = next.get(path);
    if (from === to) continue;
    if (from === undefined) lines.push(`${path}: ${to}`);
    else if (to === undefined) lines.push(`${path}: ${from} → removed`);
    else lines.push(`${path}: ${from} → ${to}`);
  }
  return lines;
}
