/**
 * Preloaded into Portkey's gateway (`node --import`), which listens on every interface and has
 * no option for the host: a `listen(port)` without a host binds 127.0.0.1 instead, so the
 * benchmark opens nothing beyond loopback. Plain JavaScript: a TypeScript loader would add its
 * own memory to Portkey's.
 */
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function listenOnLoopback(...args) {
  if (typeof args[0] === 'number' && typeof args[1] !== 'string') {
    // listen(port, undefined, callback) and listen(port, callback) alike.
    if (args[1] === undefined && args.length > 1) args[1] = '127.0.0.1';
    else args.splice(1, 0, '127.0.0.1');
  }
  return listen.apply(this, args);
};
