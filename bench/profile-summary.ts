/**
 * The arithmetic of `npm run bench:profile` (bench/profile.ts): from a V8 CPU profile (the
 * `.cpuprofile` JSON Node writes with `--cpu-prof`) to self time per function and per source
 * (an npm package, or a file). A sample's self time is its `timeDeltas` entry, attributed to the
 * node it hit (the innermost frame). Percentages are of the non-idle time: `(idle)` (the event
 * loop waiting) is left out of the denominator and reported on its own.
 */

export type CallFrame = {
  functionName: string;
  scriptId?: string;
  url: string;
  /** Zero-based, as V8 writes it; -1 when unknown. */
  lineNumber: number;
  columnNumber: number;
};

export type ProfileNode = {
  id: number;
  callFrame: CallFrame;
  hitCount?: number;
  children?: number[];
};

export type CpuProfile = {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  /** The node id each sample hit. */
  samples: number[];
  /** Microseconds since the previous sample (the first: since `startTime`). */
  timeDeltas: number[];
};

export type FunctionRow = {
  /** The function's name, `(anonymous)` when it has none. */
  name: string;
  /** `file:line` (one-based line), or '' for the VM's own entries such as `(garbage collector)`. */
  location: string;
  /** The package or file it belongs to (see `sourceOf`). */
  source: string;
  selfMicros: number;
  /** Of the non-idle time, rounded to 0.01. */
  percent: number;
};

export type SourceRow = { source: string; selfMicros: number; percent: number };

export type ProfileSummary = {
  /** All sampled time, idle included. */
  totalMicros: number;
  idleMicros: number;
  /** Idle time as a share of all sampled time, rounded to 0.01. */
  idlePercent: number;
  /** The denominator of every row's percent. */
  busyMicros: number;
  /** Every function that has self time, most first. */
  functions: FunctionRow[];
  /** Every source that has self time, most first. */
  sources: SourceRow[];
};

const IDLE = '(idle)';

const round2 = (value: number) => Math.round(value * 100) / 100;

/** The last path segment of a URL or path, without a query or hash. */
export function basename(url: string): string {
  const bare = url.replace(/[?#].*$/, '');
  return bare.slice(bare.lastIndexOf('/') + 1) || bare;
}

/**
 * Where a frame's code comes from: the npm package (`pino`, `@scope/name`; the innermost one
 * when packages are nested), a Node built-in (`node:internal/http/server`), the file's basename,
 * or, for frames without a URL, the VM's own entry (`(garbage collector)`, `(program)`) or
 * `(native)` for built-in functions.
 */
export function sourceOf(frame: Pick<CallFrame, 'functionName' | 'url'>): string {
  const { url, functionName } = frame;
  if (url === '') {
    return functionName.startsWith('(') && functionName.endsWith(')') ? functionName : '(native)';
  }
  const marker = 'node_modules/';
  const at = url.lastIndexOf(marker);
  if (at !== -1) {
    const [first = '', second = ''] = url.slice(at + marker.length).split('/');
    return first.startsWith('@') ? `${first}/${second}` : first;
  }
  if (url.startsWith('node:')) return url;
  return basename(url);
}

function rank<Row extends { selfMicros: number }>(rows: Row[], label: (row: Row) => string) {
  return rows.sort((a, b) => b.selfMicros - a.selfMicros || label(a).localeCompare(label(b)));
}

export function summariseProfile(profile: CpuProfile): ProfileSummary {
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfByNode = new Map<number, number>();
  let totalMicros = 0;
  profile.samples.forEach((id, index) => {
    const delta = profile.timeDeltas[index] ?? 0;
    selfByNode.set(id, (selfByNode.get(id) ?? 0) + delta);
    totalMicros += delta;
  });

  let idleMicros = 0;
  const functions = new Map<string, Omit<FunctionRow, 'percent'>>();
  const sources = new Map<string, number>();
  for (const [id, micros] of selfByNode) {
    const node = nodes.get(id);
    if (!node) throw new Error(`the profile's samples name node ${id}, which it does not have`);
    const frame = node.callFrame;
    if (frame.functionName === IDLE) {
      idleMicros += micros;
      continue;
    }
    const name = frame.functionName || '(anonymous)';
    const location =
      frame.url === ''
        ? ''
        : frame.lineNumber >= 0
          ? `${basename(frame.url)}:${frame.lineNumber + 1}`
          : basename(frame.url);
    const source = sourceOf(frame);
    // One function called from several places is several nodes: their self time adds up.
    const key = [name, frame.url, frame.lineNumber, frame.columnNumber].join('\u0000');
    const row = functions.get(key) ?? { name, location, source, selfMicros: 0 };
    row.selfMicros += micros;
    functions.set(key, row);
    sources.set(source, (sources.get(source) ?? 0) + micros);
  }

  const busyMicros = totalMicros - idleMicros;
  const percent = (micros: number) => (busyMicros > 0 ? round2((micros / busyMicros) * 100) : 0);
  return {
    totalMicros,
    idleMicros,
    idlePercent: totalMicros > 0 ? round2((idleMicros / totalMicros) * 100) : 0,
    busyMicros,
    functions: rank(
      [...functions.values()].map((row) => ({ ...row, percent: percent(row.selfMicros) })),
      (row) => `${row.name} ${row.location}`,
    ),
    sources: rank(
      [...sources].map(([source, selfMicros]) => ({
        source,
        selfMicros,
        percent: percent(selfMicros),
      })),
      (row) => row.source,
    ),
  };
}
