/** The gateway's command line on the end-to-end database, as a person would run it. */
import { execFileSync } from 'node:child_process';
import { e2eDatabase } from './environment';

interface ListedKey {
  id: string;
  name: string | null;
}

/** Runs `node scripts/gateway.mjs <args> --db <the e2e database>`; returns its standard output. */
export function gatewayCli(...args: string[]): string {
  return execFileSync(process.execPath, ['scripts/gateway.mjs', ...args, '--db', e2eDatabase], {
    encoding: 'utf8',
  });
}

/** The id of the demo key named `name` (`demo-account`, `demo-allocated-child`, …). */
export function keyIdOf(name: string): string {
  const listed = JSON.parse(gatewayCli('keys', 'list', '--json')) as { data: ListedKey[] };
  const key = listed.data.find((candidate) => candidate.name === name);
  if (!key) throw new Error(`no key named ${name} in the e2e database`);
  return key.id;
}
