/**
 * The project's `postinstall` (npm runs it with the pinned Node). First it loads better-sqlite3's
 * addon, so an install that built it for another Node (another ABI) fails here, not at start.
 * Then it keeps the compiled addon where its installer looks before downloading one: npm's
 * prebuild cache (`~/.npm/_prebuilds`). Its prebuilt binaries come from GitHub, which CI's machine
 * cannot reach, so each `npm ci` compiled SQLite again (about 130 s on two cores); with the addon
 * kept, the next install on this machine unpacks it instead.
 * The file's name holds the package version, Node's ABI, the platform and the architecture, so a
 * kept addon is only ever used where it was built.
 */
import './require-node.mjs';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

const require = createRequire(import.meta.url);
const packageDirectory = path.dirname(require.resolve('better-sqlite3/package.json'));
const fromPackage = createRequire(path.join(packageDirectory, 'package.json'));
const pkg = fromPackage('./package.json');
const settings = { ...fromPackage('prebuild-install/rc')(pkg), pkg };
const prebuild = fromPackage('prebuild-install/util');
const kept = prebuild.cachedPrebuild(prebuild.getDownloadUrl(settings));
const addon = 'build/Release/better_sqlite3.node';

// Throws "compiled against a different Node.js version" for an addon of another ABI; nothing is
// kept then, so a broken addon is never handed to the next install either.
const Database = require('better-sqlite3');
new Database(':memory:').prepare('SELECT 1').get();

if (fs.existsSync(kept)) {
  console.log(`better-sqlite3's addon loads on Node ${process.version}, and is kept at ${kept}`);
} else {
  fs.mkdirSync(path.dirname(kept), { recursive: true });
  const partial = `${kept}.${process.pid}.partial`;
  execFileSync('tar', ['-czf', partial, '-C', packageDirectory, addon]);
  fs.renameSync(partial, kept);
  console.log(`kept better-sqlite3's addon at ${kept}: the next install unpacks it`);
}
