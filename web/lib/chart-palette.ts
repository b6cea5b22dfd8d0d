/**
 * The one categorical palette of every chart (Activity's spend and requests, Keys' balance): eight
 * hues picked so that any two stay at least 20 apart in CIELAB (ΔE76), in each mode, and each
 * keeps 3:1 against the page's background. chart-palette.test.ts holds those rules.
 */
export const chartPalettes = {
  light: ['#2563eb', '#c2410c', '#15803d', '#7c3aed', '#be185d', '#0e7490', '#854d0e', '#1e3a8a'],
  dark: ['#60a5fa', '#fb923c', '#4ade80', '#c084fc', '#f472b6', '#22d3ee', '#facc15', '#fca5a5'],
} as const;

/** Grey, for a series that groups the rest ("Other models"); apart from every hue too. */
export const chartOtherColours = { light: '#71717a', dark: '#a1a1aa' } as const;

/** The page backgrounds the colours are drawn on (white, and Tailwind's zinc-950). */
export const chartBackgrounds = { light: '#ffffff', dark: '#09090b' } as const;

/** The nth categorical colour (wrapping round) for the current mode. */
export function chartColour(index: number, dark: boolean): string {
  const palette = chartPalettes[dark ? 'dark' : 'light'];
  return palette[((index % palette.length) + palette.length) % palette.length]!;
}

export function chartOtherColour(dark: boolean): string {
  return chartOtherColours[dark ? 'dark' : 'light'];
}
