import { Badge } from '../../../components/badge';
import { CssText } from '../../../components/css-text';
import { keyStateLabels, keyStateTones, type ManagedKeyState } from '../key-state';

const stateSymbols: Record<ManagedKeyState, string> = {
  active: '●',
  expired: '◷',
  disabled: '⊘',
  depleted: '○',
  blocked: '⊘',
  revoked: '✕',
};

/** The key state as a coloured badge with its word; `quiet` draws the word with CSS (see CssText). */
export function KeyStateBadge({
  state,
  quiet = false,
}: {
  state: ManagedKeyState;
  quiet?: boolean;
}) {
  return (
    <Badge tone={keyStateTones[state]}>
      <span aria-hidden="true">{stateSymbols[state]}</span>
      {/* The word in an element of its own, so it is findable as exactly "Active". */}
      {quiet ? <CssText text={keyStateLabels[state]} /> : <span>{keyStateLabels[state]}</span>}
    </Badge>
  );
}
