import { Badge } from '../../../components/badge';
import { keyStateLabels, keyStateTones, type ManagedKeyState } from '../key-state';

const stateSymbols: Record<ManagedKeyState, string> = {
  active: '●',
  expired: '◷',
  disabled: '⊘',
  depleted: '○',
  blocked: '⊘',
  revoked: '✕',
};

/**
 * The key state as a coloured badge with its word, as real text (copyable, found by Ctrl+F).
 * The word repeats on the Keys page (panel and tables): tests find it within its region or row.
 */
export function KeyStateBadge({ state }: { state: ManagedKeyState }) {
  return (
    <Badge tone={keyStateTones[state]}>
      <span aria-hidden="true">{stateSymbols[state]}</span>
      {/* The word in an element of its own, so it is findable as exactly "Active". */}
      <span>{keyStateLabels[state]}</span>
    </Badge>
  );
}
