import { isIPv6 } from 'node:net';

/**
 * The remote peer a request's body bytes are charged to: its IPv4 address, or the /64 network of an IPv6 one (a
 * single host is usually given a whole /64, so its addresses count as one peer). Forwarding headers are not
 * trusted: any sender can write them.
 */
export function peerOf(address: string | undefined): string {
  if (!address) return 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(address)) return address;
  const [head = '', tail] = address.split('::');
  const groups = head === '' ? [] : head.split(':');
  // "::" stands for the zero groups between head and tail: the /64 is the first four of the eight
  if (tail !== undefined) {
    const tailGroups = tail === '' ? [] : tail.split(':');
    groups.push(
      ...Array<string>(Math.max(0, 8 - groups.length - tailGroups.length)).fill('0'),
      ...tailGroups,
    );
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
