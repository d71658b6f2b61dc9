import type { IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * DNS rebinding: a page on evil.example whose name is then made to resolve to 127.0.0.1 talks to
 * the dashboard as its own origin, but the browser still sends `Host: evil.example:PORT`. So a
 * request is served only when its Host names this server as it can legitimately be reached: bound
 * to loopback, 127.0.0.1, localhost or [::1] (or the bound address, or the `--host` name) with the
 * bound port; bound to another address, that address or the `--host` name, with the bound port.
 *
 * Bound to every address (0.0.0.0, ::), the names and ports the machine is reached by (its LAN
 * addresses, DNS names, a forwarded port) cannot be known in advance: any well-formed Host is
 * accepted and the access token alone keeps strangers out (a rebinding page does not have it, and
 * the token's cookie is never sent to its origin).
 */
export type HostCheck = (req: IncomingMessage) => boolean;

/** `name[:port]`, the name a reg-name, an IPv4 address or a bracketed IPv6 address. */
const HOST_HEADER = /^(?:\[([0-9a-f:.]+)\]|([a-z0-9.-]+))(?::(\d{1,5}))?$/;
const LOOPBACK_NAMES = ['127.0.0.1', 'localhost', '::1'];
const EVERY_ADDRESS = new Set(['0.0.0.0', '::']);

export function hostCheckFor(bound: AddressInfo, listenHost: string | undefined): HostCheck {
  const names = new Set([bound.address.toLowerCase()]);
  if (listenHost !== undefined) names.add(listenHost.toLowerCase());
  if (isLoopback(bound.address)) for (const name of LOOPBACK_NAMES) names.add(name);
  const anyName = EVERY_ADDRESS.has(bound.address);
  return (req) => {
    const host = singleHost(req);
    if (host === undefined) return false;
    const match = HOST_HEADER.exec(host.toLowerCase());
    if (match === null) return false;
    if (anyName) return true;
    // No port in the Host is HTTP's default port.
    const port = match[3] === undefined ? 80 : Number(match[3]);
    return port === bound.port && names.has(match[1] ?? match[2]!);
  };
}

/** The Host header when the request has exactly one (two could be read differently by a proxy in front). */
function singleHost(req: IncomingMessage): string | undefined {
  let count = 0;
  for (let i = 0; i < req.rawHeaders.length; i += 2) if (req.rawHeaders[i]!.toLowerCase() === 'host') count += 1;
  return count === 1 ? req.headers.host : undefined;
}

function isLoopback(address: string): boolean {
  return /^127\./.test(address) || /^::ffff:127\./i.test(address) || address === '::1';
}
