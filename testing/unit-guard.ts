/**
 * Setup of the unit suites: a unit test runs in-process, so listening, connecting or spawning
 * fails at once with the file's right name, rather than slowing the fast suite unnoticed.
 */
import childProcess from 'node:child_process';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

function refuse(what: string): never {
  throw new Error(
    `A unit test may not ${what}: name the file *.integration.test.ts (loopback servers, ` +
      'databases) or *.system.test.ts (spawned processes). See docs/tests.md.',
  );
}

net.Server.prototype.listen = () => refuse('listen on a port');
net.Socket.prototype.connect = () => refuse('open a connection');
for (const name of ['spawn', 'spawnSync', 'exec', 'execSync', 'execFile', 'execFileSync', 'fork']) {
  Object.assign(childProcess, { [name]: () => refuse('spawn a process') });
}
syncBuiltinESMExports();
