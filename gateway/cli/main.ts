/** The gateway's command line as a process: `runCli` (run.ts) on this process's arguments and streams. */
import { runCli } from './run';

const code = await runCli(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
});
if (code !== 0) process.exit(code);
