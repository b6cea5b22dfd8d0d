import { sourceOf, summariseProfile, type CpuProfile, type ProfileNode } from './profile-summary';

const node = (
  id: number,
  functionName: string,
  url = '',
  lineNumber = -1,
  columnNumber = -1,
): ProfileNode => ({
  id,
  callFrame: { functionName, scriptId: '0', url, lineNumber, columnNumber },
});

const GATEWAY = 'file:///work/main/dist/gateway.js';
const PINO = '/work/main/node_modules/pino/lib/tools.js';
const SCOPED = 'file:///work/main/node_modules/@scope/pkg/index.js';

/** 1,000 µs sampled: 200 idle, so every percent is of 800. */
const profile: CpuProfile = {
  nodes: [
    node(1, '(root)'),
    node(2, '(idle)'),
    node(3, '(program)'),
    node(4, 'handle', GATEWAY, 9, 4),
    node(5, 'serialize', PINO, 99, 0),
    node(6, '', SCOPED, 0, 10),
    // The same function as node 4, reached through another caller.
    node(7, 'handle', GATEWAY, 9, 4),
    node(8, '(garbage collector)'),
  ],
  startTime: 0,
  endTime: 1000,
  samples: [2, 4, 5, 3, 7, 6, 5, 8, 2, 3],
  timeDeltas: [150, 100, 200, 100, 100, 100, 100, 50, 50, 50],
};

describe('summariseProfile', () => {
  it('gives self time per function as a share of the non-idle time', () => {
    const summary = summariseProfile(profile);
    expect(summary.totalMicros).toBe(1000);
    expect(summary.idleMicros).toBe(200);
    expect(summary.idlePercent).toBe(20);
    expect(summary.busyMicros).toBe(800);
    expect(summary.functions).toEqual([
      {
        name: 'serialize',
        location: 'tools.js:100',
        source: 'pino',
        selfMicros: 300,
        percent: 37.5,
      },
      {
        name: 'handle',
        location: 'gateway.js:10',
        source: 'gateway.js',
        selfMicros: 200,
        percent: 25,
      },
      { name: '(program)', location: '', source: '(program)', selfMicros: 150, percent: 18.75 },
      {
        name: '(anonymous)',
        location: 'index.js:1',
        source: '@scope/pkg',
        selfMicros: 100,
        percent: 12.5,
      },
      {
        name: '(garbage collector)',
        location: '',
        source: '(garbage collector)',
        selfMicros: 50,
        percent: 6.25,
      },
    ]);
  });

  it('adds up self time per source', () => {
    expect(summariseProfile(profile).sources).toEqual([
      { source: 'pino', selfMicros: 300, percent: 37.5 },
      { source: 'gateway.js', selfMicros: 200, percent: 25 },
      { source: '(program)', selfMicros: 150, percent: 18.75 },
      { source: '@scope/pkg', selfMicros: 100, percent: 12.5 },
      { source: '(garbage collector)', selfMicros: 50, percent: 6.25 },
    ]);
  });

  it('rounds to hundredths of a percent', () => {
    const thirds: CpuProfile = {
      nodes: [node(1, '(root)'), node(2, 'a', 'file:///a.js', 0, 0), node(3, 'b', 'node:fs', 0, 0)],
      startTime: 0,
      endTime: 3,
      samples: [2, 3, 3],
      timeDeltas: [1, 1, 1],
    };
    const summary = summariseProfile(thirds);
    expect(summary.functions.map((row) => [row.name, row.percent])).toEqual([
      ['b', 66.67],
      ['a', 33.33],
    ]);
    expect(summary.idlePercent).toBe(0);
  });

  it('refuses a sample that names no node', () => {
    expect(() => summariseProfile({ ...profile, samples: [...profile.samples, 99] })).toThrow(
      /node 99/,
    );
  });
});

describe('sourceOf', () => {
  it.each([
    ['/a/node_modules/x/node_modules/inner/lib/y.js', 'work', 'inner'],
    ['node:internal/http/server', 'emit', 'node:internal/http/server'],
    ['file:///work/main/gateway/http/chat.ts?v=1', 'f', 'chat.ts'],
    ['', 'stringify', '(native)'],
    ['', '(program)', '(program)'],
  ])('%s (%s) → %s', (url, functionName, expected) => {
    expect(sourceOf({ url, functionName })).toBe(expected);
  });
});
