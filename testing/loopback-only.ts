/**
 * Setup of the integration and system suites: tests send traffic only to loopback, so a
 * connection to any other address fails at once, naming it, before a packet leaves.
 */
import net from 'node:net';

const loopback = /^(localhost|127(\.\d{1,3}){3}|::1|::ffff:127(\.\d{1,3}){3})$/i;
const guarded = Symbol.for('gateway.tests.loopback-only');
const connect = net.Socket.prototype.connect;

// Files that share a process (no isolation) run this setup each; wrap connect only once.
if (!(guarded in connect))
  net.Socket.prototype.connect = Object.assign(
    function (this: net.Socket, ...args: unknown[]) {
      // Node hands itself normalised arguments as an array; users pass (port, host) or options.
      const first = Array.isArray(args[0]) ? (args[0] as unknown[])[0] : args[0];
      const options =
        typeof first === 'object' && first !== null
          ? (first as { host?: string; path?: string })
          : { host: typeof args[1] === 'string' ? args[1] : undefined };
      const host = options.host ?? 'localhost';
      if (options.path === undefined && typeof first !== 'string' && !loopback.test(host)) {
        throw new Error(`Tests connect only to loopback; this one tried ${host}.`);
      }
      return connect.apply(this, args as Parameters<typeof connect>);
    },
    { [guarded]: true },
  ) as typeof connect;
