/**
 * The benchmark's results (written as JSON) and the table printed from them. "Added" figures are
 * a target's minus the mock's, measured in the same run, so the hop through the mock cancels out.
 */
import type { ClosedResult, Percentiles, RateResult, StreamsResult } from './load-protocol';
import { formatPromptCache, type PromptCacheResults } from './prompt-cache';
import { formatNetwork, type NetworkResults } from './network';
import { formatBatchBeside, type BatchBesideResults } from './batch-beside';

export const TARGETS = ['mock', 'gateway', 'portkey'] as const;
export type TargetName = (typeof TARGETS)[number];

export const TARGET_LABELS: Record<TargetName, string> = {
  mock: 'mock directly',
  gateway: 'this gateway',
  portkey: 'Portkey 1.15.2',
};

export type Added = { p50: number; p99: number; p999: number };

export type MemoryRow = {
  idleMb: number | null;
  /** Highest resident memory while this process was the target of the c=32 load. */
  saturationMb: number | null;
  /** Highest resident memory during the c=100 streams through it. */
  streamsMb: number | null;
  endMb: number | null;
};

/**
 * The gateway's memory over repeated rounds of the same c=32 load, at the end of the run: its
 * resident memory a second after each round, to show whether it levels off or keeps growing.
 */
export type RepeatedRounds = {
  rounds: number;
  secondsEach: number;
  requestsPerSecond: number[];
  /** VmRSS a second after each round, in MB. */
  afterRoundMb: number[];
  /** Highest VmRSS during each round, in MB. */
  peakMb: number[];
};

export type GenerationRecords = {
  /** Records written per second during the c=32 load. */
  writtenPerSecond: number;
  /** Records written per successful answer in that window (1 when every answer has its record). */
  perAnswer: number;
  /** Records moved to settled per second during the same window. */
  settledPerSecond: number;
  /** Records still unsettled one and a half settle intervals after the load. */
  pendingAfter: number;
  settleIntervalMs: number;
};

export type BffResults =
  | {
      skipped: false;
      latency: ClosedResult;
      stream: StreamsResult;
      /** BFF minus the gateway alone, both measured at c=1 in this run. */
      added: Added;
      addedTtft: { p50: number; p99: number };
      memory: { idleMb: number | null; peakMb: number | null; endMb: number | null };
    }
  | { skipped: true; reason: string };

export type BenchResults = {
  date: string;
  command: string;
  quick: boolean;
  machine: {
    cpus: number;
    model: string;
    node: string;
    /** One-minute load average before and after the run: other work on the machine skews it. */
    loadAverage: { before: number; after: number };
  };
  setup: {
    completionTokens: number;
    streamChunks: number;
    streamIntervalMs: number;
    rateEngine: 'paced' | 'autocannon';
    seconds: Record<string, number>;
    gatewayEnvironment: Record<string, string>;
  };
  latencyC1: Record<TargetName, ClosedResult>;
  addedC1: Record<Exclude<TargetName, 'mock'>, Added>;
  /**
   * Not a target: a bare Node proxy (node:http and an undici pool, nothing else) in front of the
   * same mock at c=1 (bench/bare-proxy.ts), the floor under the gateway's added latency.
   */
  floorC1: { result: ClosedResult; added: Added };
  /** The same bare proxy passing streams on at c=1: the floor under the added time to first token. */
  floorStreamsC1: { result: StreamsResult; addedTtft: { p50: number; p99: number } };
  throughputC32: Record<TargetName, ClosedResult>;
  rates: Array<{ rate: number; results: Record<TargetName, RateResult> }>;
  streams: Array<{
    concurrency: number;
    results: Record<TargetName, StreamsResult>;
    addedTtft: Record<Exclude<TargetName, 'mock'>, { p50: number; p99: number }>;
  }>;
  bff: BffResults;
  /**
   * One tenant must not stall the others: the gateway's c=1 latency for one key's small requests,
   * alone and while another key floods it with large bodies from a second load worker.
   */
  noisyNeighbour: {
    bodyBytes: number;
    floodConnections: number;
    alone: Percentiles;
    duringFlood: Percentiles;
    flood: { perSecond: number; statuses: Record<string, number> };
  };
  memory: Record<TargetName, MemoryRow>;
  repeatedRounds?: RepeatedRounds;
  /** The workbench's catalog filter on 2,000 models, per keystroke (bench/catalog-filter.ts). */
  catalogFilter: {
    models: number;
    keystrokes: number;
    p50: number;
    p99: number;
    max: number;
    budget: number;
  };
  generations: GenerationRecords;
  /** The prompt-cache replay, direct and through the gateway (bench/prompt-cache.ts). */
  promptCache?: PromptCacheResults;
  /** PostgreSQL and Redis behind delaying proxies against SQLite (bench/network.ts). */
  network?: NetworkResults;
  /** Interactive latency alone and beside a running batch (bench/batch-beside.ts). */
  batchBeside?: BatchBesideResults;
  /** An embeddings request (bench-setup.ts `EMBEDDING_INPUTS` inputs) to the mock and through the gateway. */
  embeddings?: {
    inputs: number;
    c1: Record<'mock' | 'gateway', ClosedResult>;
    c32: Record<'mock' | 'gateway', ClosedResult>;
  };
  /** The same question through the gateway as chat completions and as a Responses request. */
  responses?: {
    c1: Record<'chat' | 'responses', ClosedResult>;
    c32: Record<'chat' | 'responses', ClosedResult>;
  };
  ratios: Record<string, number | null>;
};

const round = (value: number, digits = 3) => Math.round(value * 10 ** digits) / 10 ** digits;

export function added(target: Percentiles, base: Percentiles): Added {
  return {
    p50: round(target.p50 - base.p50),
    p99: round(target.p99 - base.p99),
    p999: round(target.p999 - base.p999),
  };
}

/** Milliseconds with precision where it matters: 0.123, 12.3, 1234. */
export function ms(value: number | null | undefined, signed = false): string {
  if (value === null || value === undefined || Number.isNaN(value)) return '—';
  const sign = signed && value > 0 ? '+' : '';
  const magnitude = Math.abs(value);
  const digits = magnitude < 10 ? 3 : magnitude < 100 ? 1 : 0;
  return `${sign}${value.toFixed(digits)}`;
}

const count = (value: number) => Math.round(value).toLocaleString('en-US');
const megabytes = (value: number | null | undefined) =>
  value === null || value === undefined ? '—' : value.toFixed(0);
const times = (value: number | null) => (value === null ? '—' : `${value.toFixed(2)}×`);

/** Non-2xx answers and errors, if any, e.g. ` [429×12]`. */
function failures(result: { failed: number; statuses: Record<string, number> }): string {
  if (result.failed === 0) return '';
  const parts = Object.entries(result.statuses).map(([status, n]) => `${status}×${n}`);
  return ` [${parts.join(' ') || `${result.failed} failed`}]`;
}

function table(title: string, header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) =>
    Math.max(cell.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!),
      )
      .join('  ')
      .trimEnd();
  return [
    title,
    line(header),
    widths.map((width) => '-'.repeat(width)).join('  '),
    ...rows.map(line),
  ].join('\n');
}

export function formatReport(results: BenchResults): string {
  const { setup } = results;
  const sections: string[] = [
    `Side-by-side benchmark, ${results.date}${results.quick ? ' (--quick)' : ''}: ${results.machine.cpus} CPUs ` +
      `(${results.machine.model}), Node ${results.machine.node}. Mock: ${setup.completionTokens}-token chat ` +
      `completion; streams of ${setup.streamChunks} chunks every ${setup.streamIntervalMs} ms. All on 127.0.0.1.`,
  ];
  const { loadAverage, cpus } = results.machine;
  if (loadAverage.before > cpus / 2) {
    sections.push(
      `Warning: the machine was busy before the run (load average ${loadAverage.before.toFixed(1)} on ${cpus} CPUs, ` +
        `${loadAverage.after.toFixed(1)} after). Absolute figures are slower than on a quiet machine; ratios are rougher.`,
    );
  }

  sections.push(
    table(
      'Latency at c=1, ms (added = target minus the mock)',
      ['target', 'p50', 'p99', 'p99.9', 'added p50', 'added p99', 'added p99.9', 'requests'],
      [
        ...TARGETS.map((name) => ({
          label: TARGET_LABELS[name],
          result: results.latencyC1[name],
          extra: name === 'mock' ? null : results.addedC1[name],
        })),
        {
          label: 'bare Node proxy (floor)',
          result: results.floorC1.result,
          extra: results.floorC1.added,
        },
      ].map(({ label, result, extra }) => [
        label,
        ms(result.latency.p50),
        ms(result.latency.p99),
        ms(result.latency.p999),
        ms(extra?.p50, true),
        ms(extra?.p99, true),
        ms(extra?.p999, true),
        `${count(result.ok)}${failures(result)}`,
      ]),
    ),
  );

  sections.push(
    table(
      'Throughput at c=32 (closed loop, autocannon)',
      ['target', 'req/s', 'of mock', 'p50 ms', 'p99 ms'],
      TARGETS.map((name) => {
        const result = results.throughputC32[name];
        return [
          TARGET_LABELS[name],
          `${count(result.perSecond)}${failures(result)}`,
          `${Math.round((result.perSecond / results.throughputC32.mock.perSecond) * 100)}%`,
          ms(result.latency.p50),
          ms(result.latency.p99),
        ];
      }),
    ),
  );

  if (results.embeddings) {
    const { embeddings } = results;
    sections.push(
      table(
        `Embeddings, ${embeddings.inputs} inputs a request (plain JSON)`,
        ['target', 'c=1 p50 ms', 'c=1 p99 ms', 'c=32 req/s', 'c=32 p99 ms'],
        (['mock', 'gateway'] as const).map((name) => [
          TARGET_LABELS[name],
          ms(embeddings.c1[name].latency.p50),
          ms(embeddings.c1[name].latency.p99),
          `${count(embeddings.c32[name].perSecond)}${failures(embeddings.c32[name])}`,
          ms(embeddings.c32[name].latency.p99),
        ]),
      ),
    );
  }

  if (results.responses) {
    const { responses } = results;
    const labels = { chat: 'chat completions', responses: 'Responses' };
    sections.push(
      table(
        'The gateway by public form, the same question (plain JSON)',
        ['form', 'c=1 p50 ms', 'c=1 p99 ms', 'c=32 req/s', 'c=32 p99 ms'],
        (['chat', 'responses'] as const).map((name) => [
          labels[name],
          ms(responses.c1[name].latency.p50),
          ms(responses.c1[name].latency.p99),
          `${count(responses.c32[name].perSecond)}${failures(responses.c32[name])}`,
          ms(responses.c32[name].latency.p99),
        ]),
      ),
    );
  }

  sections.push(
    table(
      `p99 latency at fixed rates, ms (${setup.rateEngine === 'paced' ? 'open loop, evenly spaced' : 'autocannon overallRate'}; * = could not keep the rate, achieved req/s shown)`,
      ['target', ...results.rates.map(({ rate }) => `${count(rate)}/s`)],
      TARGETS.map((name) => [
        TARGET_LABELS[name],
        ...results.rates.map(({ results: byTarget }) => {
          const result = byTarget[name];
          const mark = result.overloaded ? `* (${count(result.achieved)}/s)` : '';
          return `${ms(result.latency.p99)}${mark}${failures(result)}`;
        }),
      ]),
    ),
  );

  for (const { concurrency, results: byTarget, addedTtft } of results.streams) {
    sections.push(
      table(
        `Streaming at c=${concurrency}: time to first token and gaps between chunks, ms (mock interval ${setup.streamIntervalMs} ms)`,
        [
          'target',
          'TTFT p50',
          'TTFT p99',
          'added p50',
          'added p99',
          'gap p50',
          'gap p99',
          'chunks',
          'coalesced',
          'streams',
        ],
        [
          ...TARGETS.map((name) => ({
            label: TARGET_LABELS[name],
            result: byTarget[name],
            extra: name === 'mock' ? null : addedTtft[name],
          })),
          ...(concurrency === 1 && results.floorStreamsC1
            ? [
                {
                  label: 'bare Node proxy (floor)',
                  result: results.floorStreamsC1.result,
                  extra: results.floorStreamsC1.addedTtft,
                },
              ]
            : []),
        ].map(({ label, result, extra }) => {
          return [
            label,
            ms(result.ttft.p50),
            ms(result.ttft.p99),
            ms(extra?.p50, true),
            ms(extra?.p99, true),
            ms(result.gaps.p50),
            ms(result.gaps.p99),
            result.chunksPerStream.toFixed(1),
            `${(result.coalesced * 100).toFixed(1)}%`,
            `${count(result.streams)}${failures(result)}`,
          ];
        }),
      ),
    );
  }

  const { bff } = results;
  sections.push(
    bff.skipped
      ? `Workbench BFF in front of the gateway: skipped (${bff.reason})`
      : table(
          'Workbench BFF in front of the gateway, c=1, ms (added = BFF minus the gateway alone)',
          [
            'path',
            'p50',
            'p99',
            'p99.9',
            'added p50',
            'added p99',
            'TTFT p50',
            'TTFT p99',
            'added TTFT p50',
            'RSS idle/peak MB',
          ],
          [
            [
              'BFF → gateway → mock',
              ms(bff.latency.latency.p50),
              ms(bff.latency.latency.p99),
              ms(bff.latency.latency.p999),
              ms(bff.added.p50, true),
              ms(bff.added.p99, true),
              ms(bff.stream.ttft.p50),
              ms(bff.stream.ttft.p99),
              ms(bff.addedTtft.p50, true),
              `${megabytes(bff.memory.idleMb)} / ${megabytes(bff.memory.peakMb)}${failures(bff.latency)}${failures(bff.stream)}`,
            ],
          ],
        ),
  );

  const { noisyNeighbour: neighbour } = results;
  sections.push(
    table(
      `One key's small requests at c=1 while another key sends ${megabytes(neighbour.bodyBytes / 1e6)} MB bodies on ${neighbour.floodConnections} connections, ms`,
      ['small requests', 'p50', 'p99', 'p99.9', 'flood answers/s', 'flood statuses'],
      [
        [
          'alone',
          ms(neighbour.alone.p50),
          ms(neighbour.alone.p99),
          ms(neighbour.alone.p999),
          '—',
          '—',
        ],
        [
          'during the flood',
          ms(neighbour.duringFlood.p50),
          ms(neighbour.duringFlood.p99),
          ms(neighbour.duringFlood.p999),
          count(neighbour.flood.perSecond),
          Object.entries(neighbour.flood.statuses)
            .map(([status, times]) => `${status}×${times}`)
            .join(' ') || '2xx only',
        ],
      ],
    ),
  );

  sections.push(
    table(
      'Resident memory (VmRSS), MB',
      ['process', 'idle', 'c=32 saturation', 'c=100 streams', 'end'],
      TARGETS.map((name) => {
        const row = results.memory[name];
        return [
          TARGET_LABELS[name],
          megabytes(row.idleMb),
          megabytes(row.saturationMb),
          megabytes(row.streamsMb),
          megabytes(row.endMb),
        ];
      }),
    ),
  );

  const repeated = results.repeatedRounds;
  if (repeated) {
    sections.push(
      `Gateway memory over ${repeated.rounds} more rounds of ${repeated.secondsEach} s at c=32: ` +
        `peak ${repeated.peakMb.map(megabytes).join(' / ')} MB, ` +
        `a second after each ${repeated.afterRoundMb.map(megabytes).join(' / ')} MB ` +
        `(${repeated.requestsPerSecond.map(count).join(' / ')} req/s).`,
    );
  }

  const filter = results.catalogFilter;
  sections.push(
    `Workbench catalog filter: ${count(filter.models)} models, ${filter.keystrokes} keystrokes: p50 ${ms(filter.p50)} ms, ` +
      `p99 ${ms(filter.p99)} ms, max ${ms(filter.max)} ms per keystroke (budget ${filter.budget} ms).`,
  );

  if (results.promptCache) sections.push(formatPromptCache(results.promptCache));
  if (results.network) sections.push(formatNetwork(results.network));
  if (results.batchBeside) sections.push(formatBatchBeside(results.batchBeside));

  const records = results.generations;
  sections.push(
    `Generation records (gateway, during the c=32 load): ${count(records.writtenPerSecond)} written/s, ` +
      `${records.perAnswer.toFixed(3)} per answer; ${count(records.settledPerSecond)} settled/s ` +
      `(settle interval ${records.settleIntervalMs} ms), ${count(records.pendingAfter)} still pending ` +
      `${(records.settleIntervalMs * 1.5) / 1000} s after the load.`,
  );

  const { ratios } = results;
  sections.push(
    [
      'Ratios (this gateway vs Portkey, same run):',
      `  throughput at c=32: ${times(ratios.throughputVsPortkey ?? null)} Portkey's (goal ≥ 5×); ${times(ratios.throughputVsMock ?? null)} the mock's`,
      `  added latency at c=1, p50 / p99: ${times(ratios.addedP50VsPortkey ?? null)} / ${times(ratios.addedP99VsPortkey ?? null)} Portkey's`,
      `  added time to first token at c=1, p50: ${times(ratios.addedTtftVsPortkey ?? null)} Portkey's`,
      `  RSS at c=32 saturation: ${times(ratios.rssVsPortkey ?? null)} Portkey's`,
    ].join('\n'),
  );
  return sections.join('\n\n');
}
