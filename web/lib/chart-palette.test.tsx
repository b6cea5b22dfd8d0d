import { chartBackgrounds, chartColour, chartOtherColours, chartPalettes } from './chart-palette';
import { layerColour, otherModelsLabel } from '../features/activity/chart-series';

const channels = (hex: string) => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16) / 255);
const linear = (c: number) => (c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);

function lab(hex: string): [number, number, number] {
  const [r, g, b] = channels(hex).map(linear) as [number, number, number];
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t: number) => (t > 0.008856 ? Math.cbrt(t) : 7.787 * t + 16 / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

const deltaE = (a: string, b: string) => {
  const [l1, a1, b1] = lab(a);
  const [l2, a2, b2] = lab(b);
  return Math.hypot(l1 - l2, a1 - a2, b1 - b2);
};

const luminance = (hex: string) => {
  const [r, g, b] = channels(hex).map(linear) as [number, number, number];
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
};
const contrast = (a: string, b: string) => {
  const [high, low] = [luminance(a), luminance(b)].sort((x, y) => y - x) as [number, number];
  return (high + 0.05) / (low + 0.05);
};

describe.each(['light', 'dark'] as const)('the chart palette in %s mode', (mode) => {
  const colours = [...chartPalettes[mode], chartOtherColours[mode]];

  it('keeps every two colours at least 20 apart (ΔE76)', () => {
    const close: string[] = [];
    colours.forEach((first, index) =>
      colours.slice(index + 1).forEach((second) => {
        if (deltaE(first, second) < 20) close.push(`${first} ~ ${second}`);
      }),
    );
    expect(close).toEqual([]);
  });

  it('keeps 3:1 against the background', () => {
    const faint = colours.filter((colour) => contrast(colour, chartBackgrounds[mode]) < 3);
    expect(faint).toEqual([]);
  });

  it('wraps round after the last colour', () => {
    const dark = mode === 'dark';
    expect(chartColour(chartPalettes[mode].length, dark)).toBe(chartColour(0, dark));
  });
});

describe('the charts that draw from it', () => {
  it("colours Activity's spend layers with it, and groups the rest in grey", () => {
    const layer = (label: string, models: string[]) => ({ label, models, nanos: [] });
    for (const dark of [false, true]) {
      const colours = Array.from({ length: 8 }, (_, index) =>
        layerColour(layer(`m${index}`, [`m${index}`]), index, dark),
      );
      expect(colours).toEqual([...chartPalettes[dark ? 'dark' : 'light']]);
      expect(layerColour(layer(otherModelsLabel, ['a', 'b']), 8, dark)).toBe(
        chartOtherColours[dark ? 'dark' : 'light'],
      );
    }
  });
});
