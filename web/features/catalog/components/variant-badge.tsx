import { Badge, type BadgeTone } from '../../../components/badge';

const variantTones: Record<string, BadgeTone> = { free: 'green', batch: 'violet' };

/** A model's variant (`:free`, `:batch`, …) as a badge; nothing for the base model. */
export function VariantBadge({ variant }: { variant: string | null }) {
  if (!variant) return null;
  return <Badge tone={variantTones[variant] ?? 'sky'}>:{variant}</Badge>;
}
