/**
 * A stand-in for the embedded gateway's process in the supervisor's tests: it says `ready` over
 * IPC and idles. FAKE_CHILD_COUNTER names a file counting its runs; the runs listed in
 * FAKE_CHILD_FAIL_RUNS (e.g. `2,3`) fail to start instead.
 */
import fs from 'node:fs';

const counterFile = process.env.FAKE_CHILD_COUNTER;
let run = 1;
if (counterFile) {
  run = (fs.existsSync(counterFile) ? Number(fs.readFileSync(counterFile, 'utf8')) : 0) + 1;
  fs.writeFileSync(counterFile, String(run));
}
const failingRuns = (process.env.FAKE_CHILD_FAIL_RUNS ?? '').split(',').filter(Boolean).map(Number);
if (failingRuns.includes(run)) {
  process.send?.({ type: 'failed', message: `run ${run} fails on purpose` });
  process.exit(1);
}
process.on('disconnect', () => process.exit(0));
process.send?.({ type: 'ready', url: 'http://127.0.0.1:9' });
setInterval(() => undefined, 60_000);
