/**
 * Stops a start under a Node the project does not support, before anything else loads: npm's
 * scripts run the pinned Node (node_modules/.bin/node, from the `node` package), but a script run
 * by hand with the machine's `node` would not. Plain JavaScript that every Node since 12 parses.
 * The supported range is package.json's `engines.node`, written `^major.minor.patch`.
 */
import fs from 'node:fs';

const manifest = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** Whether `version` (e.g. `v24.21.0`) lies in `range` (`^24.21.0`: that or newer, same major). */
export function supports(range, version) {
  const wanted = /^\^(\d+)\.(\d+)\.(\d+)$/.exec(range);
  if (!wanted)
    throw new Error(`package.json: engines.node must read ^major.minor.patch, not ${range}`);
  const [major, minor, patch] = version.replace(/^v/, '').split('.').map(Number);
  const [, wantedMajor, wantedMinor, wantedPatch] = wanted.map(Number);
  if (major !== wantedMajor) return false;
  return minor > wantedMinor || (minor === wantedMinor && patch >= wantedPatch);
}

export const supportedRange = manifest.engines.node;

if (!supports(supportedRange, process.version)) {
  process.stderr.write(
    `This project runs on Node ${supportedRange.slice(1).split('.')[0]} ` +
      `(${supportedRange.slice(1)} or a newer ${supportedRange.slice(1).split('.')[0]}.x); ` +
      `this is Node ${process.version} (${process.execPath}).\n` +
      'Run it through npm, which uses the Node that `npm ci` installs: `npm start`, ' +
      '`npm run gateway -- …`; or with that Node directly: `node_modules/.bin/node scripts/…`.\n',
  );
  process.exit(1);
}
