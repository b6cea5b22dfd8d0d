/**
 * Whether an address is a public one a request may go to: not loopback, private, link-local
 * (cloud metadata), carrier-grade NAT, multicast, reserved or documentation space, in IPv4 or
 * IPv6, including IPv4 written inside IPv6. Used for webhook targets, where a user names the URL.
 */
import dns from 'node:dns';
import net from 'node:net';

const blocked = new net.BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.88.99.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // Unspecified, loopback and the deprecated IPv4-compatible addresses (`::127.0.0.1`).
  ['::', 96],
  ['64:ff9b::', 96],
  ['64:ff9b:1::', 48],
  ['100::', 64],
  ['2001::', 23],
  ['2001:db8::', 32],
  ['2002::', 16],
  ['fc00::', 7],
  ['fe80::', 10],
  ['fec0::', 10],
  ['ff00::', 8],
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** True for an IP address a request to a user-named host may reach. */
export function isPublicAddress(address: string): boolean {
  const family = net.isIP(address);
  if (family === 4) return !blocked.check(address, 'ipv4');
  // An IPv4-mapped address (`::ffff:7f00:1`) is checked against the IPv4 ranges by BlockList.
  return family === 6 && !blocked.check(address, 'ipv6');
}

/** Resolves a name to its addresses (the test suite passes a stub, so no name leaves loopback). */
export type Resolve = (hostname: string) => Promise<string[]>;

export const systemResolve: Resolve = async (hostname) =>
  (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map(
    (entry) => entry.address,
  );

/** A target refused before any connection was opened; the message says why. */
export class AddressRefused extends Error {}

/**
 * The addresses to connect to for `hostname`: every one it resolves to, each checked; refused
 * when any is not public (unless `allowPrivate`), so a name cannot mix one in.
 */
export async function checkedAddresses(
  hostname: string,
  resolve: Resolve,
  allowPrivate: boolean,
): Promise<string[]> {
  const bare = hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: string[];
  if (net.isIP(bare)) {
    addresses = [bare];
  } else {
    try {
      addresses = await resolve(bare);
    } catch (error) {
      throw new AddressRefused(
        `The name ${bare} does not resolve (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}).`,
      );
    }
    if (addresses.length === 0) throw new AddressRefused(`The name ${bare} has no address.`);
  }
  if (!allowPrivate) {
    const refused = addresses.find((address) => !isPublicAddress(address));
    if (refused !== undefined) {
      throw new AddressRefused(
        `${refused === bare ? `The address ${bare}` : `The name ${bare} resolves to ${refused}, which`} is not a public address (loopback, private, link-local, metadata, multicast and reserved ranges are refused). For local testing, start the gateway with GATEWAY_WEBHOOK_ALLOW_PRIVATE=true.`,
      );
    }
  }
  return addresses;
}

/**
 * A `lookup` for a connection that answers only with addresses already checked, so the name is
 * not resolved again between the check and the connect (DNS rebinding).
 */
export function pinnedLookup(addresses: readonly string[]): net.LookupFunction {
  const entries = addresses.map((address) => ({ address, family: net.isIP(address) }));
  return (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) callback(null, entries as never);
    else callback(null, entries[0]!.address, entries[0]!.family);
  };
}
