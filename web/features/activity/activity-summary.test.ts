import type { ActivityView } from '../../../contract/workbench-api';
import {
  activityDaysFor,
  describeRange,
  generationsWindow,
  modelFilterNote,
  readActivityFilters,
  withPreset,
  withRange,
} from './activity-filters';
import { nanosToPlainUsd, usdToNanos } from '../../../contract/usd-nanos';
import { csvFileName, modelsOf, summarizeActivity, summaryToCsv } from './activity-summary';
import { otherModelsLabel, spendLayers, stackedTops } from './chart-series';

/** 2026-11-22 15:00 UTC. */
const now = Date.UTC(2026, 10, 22, 15);

const figures = (requests: number, cost: number) => ({
  requests,
  prompt_tokens: requests * 10,
  completion_tokens: requests * 3,
  cost_usd: cost,
});

/** Three days; floats the gateway really sends (nanos / 1e9). */
function view(): ActivityView {
  return {
    profile: 'demo-account',
    days: 3,
    from: '2026-11-20',
    to: '2026-11-22',
    data: [
      {
        date: '2026-11-20',
        ...figures(3, 0.3),
        models: [
          { model: 'sim/chat-standard', ...figures(2, 0.1) },
          { model: 'sim/echo-mini', ...figures(1, 0.2) },
        ],
      },
      { date: '2026-11-21', ...figures(0, 0), models: [] },
      {
        date: '2026-11-22',
        ...figures(4, 0.000123457),
        models: [
          { model: 'sim/chat-standard', ...figures(3, 0.000123) },
          { model: 'sim/echo-mini', ...figures(1, 4.57e-7) },
        ],
      },
    ],
    totals: figures(7, 0.300123457),
    fetched_at: now,
  };
}

describe('summarizeActivity', () => {
  it('adds days from their models and the range from its days, in nano-dollars', () => {
    const summary = summarizeActivity(view(), { from: '2026-11-20', to: '2026-11-22' });
    expect(summary.days.map((day) => day.date)).toEqual(['2026-11-20', '2026-11-21', '2026-11-22']);
    expect(summary.totals).toEqual({
      requests: 7,
      promptTokens: 70,
      completionTokens: 21,
      costNanos: 300_123_457,
    });
    expect(summary.days[2]?.costNanos).toBe(123_457);
    // The most spent on first.
    expect(summary.models).toEqual(['sim/echo-mini', 'sim/chat-standard']);
  });

  it('narrows to the range and to one model', () => {
    const lastDay = summarizeActivity(view(), { from: '2026-11-22', to: '2026-11-22' });
    expect(lastDay.days).toHaveLength(1);
    expect(lastDay.totals.costNanos).toBe(123_457);
    const oneModel = summarizeActivity(
      view(),
      { from: '2026-11-20', to: '2026-11-22' },
      'sim/chat-standard',
    );
    expect(oneModel.models).toEqual(['sim/chat-standard']);
    expect(oneModel.totals).toMatchObject({ requests: 5, costNanos: 100_123_000 });
    expect(oneModel.days[0]?.costNanos).toBe(100_000_000);
  });

  it('lists the models of the whole view for the filter', () => {
    expect(modelsOf(view())).toEqual(['sim/echo-mini', 'sim/chat-standard']);
    expect(modelsOf(undefined)).toEqual([]);
  });
});

describe('the CSV', () => {
  it('has a line per day and model, and a total that the lines add up to exactly', () => {
    const summary = summarizeActivity(view(), { from: '2026-11-20', to: '2026-11-22' });
    const csv = summaryToCsv(summary);
    const lines = csv.trimEnd().split('\r\n');
    expect(lines).toEqual([
      'date,model,requests,prompt_tokens,completion_tokens,cost_usd',
      '2026-11-20,sim/echo-mini,1,10,3,0.2',
      '2026-11-20,sim/chat-standard,2,20,6,0.1',
      '2026-11-22,sim/echo-mini,1,10,3,0.000000457',
      '2026-11-22,sim/chat-standard,3,30,9,0.000123',
      'total,2026-11-20 to 2026-11-22,7,70,21,0.300123457',
    ]);
    const body = lines.slice(1, -1).map((line) => line.split(','));
    const sum = body.reduce((total, fields) => total + usdToNanos(Number(fields[5])), 0);
    expect(nanosToPlainUsd(sum)).toBe('0.300123457');
    expect(body.reduce((total, fields) => total + Number(fields[2]), 0)).toBe(7);
  });

  it('quotes commas and defuses what a spreadsheet would run as a formula', () => {
    const odd = view();
    odd.data[2]!.models[0]!.model = '=HYPERLINK("x"),1';
    const csv = summaryToCsv(summarizeActivity(odd, { from: '2026-11-22', to: '2026-11-22' }));
    expect(csv).toContain(`2026-11-22,"'=HYPERLINK(""x""),1",3,30,9,0.000123`);
  });

  it('names the file after the profile, the model and the range', () => {
    const summary = summarizeActivity(view(), { from: '2026-11-20', to: '2026-11-22' });
    expect(csvFileName('demo account', summary, 'sim/chat-standard:free')).toBe(
      'activity-demo_account-sim_chat-standard_free-2026-11-20-to-2026-11-22.csv',
    );
  });
});

describe('chart series', () => {
  it('stacks the layers: the top of each bar is the day’s total', () => {
    const summary = summarizeActivity(view(), { from: '2026-11-20', to: '2026-11-22' });
    const layers = spendLayers(summary);
    expect(layers.map((layer) => layer.label)).toEqual(['sim/echo-mini', 'sim/chat-standard']);
    const tops = stackedTops(layers);
    expect(tops[0]).toEqual(summary.days.map((day) => day.costNanos / 1e9));
    expect(tops[1]).toEqual([0.2, 0, 4.57e-7]);
  });

  it('names the biggest models and puts the rest together', () => {
    const many = view();
    many.data[2]!.models = Array.from({ length: 10 }, (_, index) => ({
      model: `m/${index}`,
      ...figures(1, (10 - index) / 1000),
    }));
    const layers = spendLayers(summarizeActivity(many, { from: '2026-11-22', to: '2026-11-22' }));
    expect(layers).toHaveLength(8);
    expect(layers[7]).toMatchObject({ label: otherModelsLabel, models: ['m/7', 'm/8', 'm/9'] });
    expect(layers[7]?.nanos).toEqual([6_000_000]);
  });
});

describe('the filters in the URL', () => {
  const read = (query: string) => readActivityFilters(new URLSearchParams(query), now);

  it('default to the last 30 UTC days, today included', () => {
    expect(read('')).toMatchObject({
      from: '2026-10-24',
      to: '2026-11-22',
      presetDays: 30,
      model: null,
      outcome: null,
      keyId: null,
      corrected: null,
    });
    expect(activityDaysFor(read(''), now)).toBe(30);
  });

  it('read a key id, and ignore one that is not', () => {
    expect(read('key_id=key_bot')).toMatchObject({ keyId: 'key_bot', corrected: null });
    expect(read('key_id=not%20a%20key')).toMatchObject({
      keyId: null,
      corrected: 'a key id that is not one was ignored.',
    });
  });

  it('read a preset, dates, a model and an outcome', () => {
    expect(read('days=7')).toMatchObject({ from: '2026-11-16', to: '2026-11-22', presetDays: 7 });
    const fixed = read('from=2026-11-01&to=2026-11-10&model=sim%2Fecho-mini&outcome=ended_early');
    expect(fixed).toMatchObject({
      from: '2026-11-01',
      to: '2026-11-10',
      presetDays: null,
      model: 'sim/echo-mini',
      outcome: 'ended_early',
    });
    // The activity must reach back to the first day; the table takes Unix seconds, `to` excluded.
    expect(activityDaysFor(fixed, now)).toBe(22);
    expect(generationsWindow(fixed)).toEqual({
      from: Date.UTC(2026, 10, 1) / 1000,
      to: Date.UTC(2026, 10, 11) / 1000,
    });
    expect(describeRange(fixed)).toBe('Nov 1 – Nov 10, 2026 (UTC)');
  });

  it('correct what the gateway cannot show, and say so', () => {
    expect(read('days=365')).toMatchObject({ presetDays: 30 });
    expect(read('days=365').corrected).toContain('1 to 90');
    const old = read('from=2025-01-01&to=2026-12-31');
    expect(old).toMatchObject({ from: '2026-08-25', to: '2026-11-22' });
    expect(old.corrected).toContain('90 days');
    expect(read('from=2026-11-20&to=2026-11-10')).toMatchObject({
      from: '2026-11-10',
      to: '2026-11-10',
    });
    expect(read('from=2026-02-30').corrected).toContain('YYYY-MM-DD');
    expect(read('outcome=failed')).toMatchObject({ outcome: null });
  });

  it('say only what is true of a range entirely older than the 90 days', () => {
    const ancient = read('from=2020-01-01&to=2020-01-05');
    // Not a one-day range before the window: the default range, inside it.
    expect(ancient).toMatchObject({ from: '2026-10-24', to: '2026-11-22' });
    expect(ancient.corrected).toBe(
      'activity goes back 90 days at most (to 2026-08-25), and the range 2020-01-01 to 2020-01-05 ended before that; showing the last 30 days.',
    );
    expect(ancient.corrected).not.toContain('started after it ended');
    expect(read('from=2026-11-20&to=2026-11-10').corrected).toBe(
      'the range started (2026-11-20) after it ended (2026-11-10); showing 2026-11-10 only.',
    );
    expect(read('from=2025-01-01&to=2026-11-01').corrected).toBe(
      'activity goes back 90 days at most, so the range starts at 2026-08-25 instead of 2025-01-01.',
    );
  });

  it('say when a model filter matches nothing, and whether the catalog knows the model', () => {
    const range = 'Oct 24 – Nov 22, 2026 (UTC)';
    expect(modelFilterNote(null, [], null, range)).toBeNull();
    expect(modelFilterNote('sim/echo', ['sim/echo'], null, range)).toBeNull();
    expect(modelFilterNote('nope/none', [], new Set(['sim/echo']), range)).toMatch(
      /^“nope\/none” is not a model in the gateway’s catalog/,
    );
    expect(modelFilterNote('sim/echo', [], new Set(['sim/echo']), range)).toBe(
      'This key made no request to “sim/echo” in Oct 24 – Nov 22, 2026 (UTC): the figures below are zero because nothing matches.',
    );
  });

  it('write presets and dates back, keeping the other parameters', () => {
    const search = new URLSearchParams(
      'profile=demo-account&model=sim%2Fecho&from=2026-11-01&to=2026-11-02',
    );
    expect(withPreset(search, 7).toString()).toBe('profile=demo-account&model=sim%2Fecho&days=7');
    expect(withPreset(search, 30).toString()).toBe('profile=demo-account&model=sim%2Fecho');
    const filters = readActivityFilters(new URLSearchParams('days=7'), now);
    expect(
      withRange(new URLSearchParams('days=7'), filters, { from: '2026-11-18' }).toString(),
    ).toBe('from=2026-11-18&to=2026-11-22');
  });
});
