import http from 'node:http';
import https from 'node:https';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import type { PveClientOptions } from './clientTypes';
import { PveError } from './pveErrors';

// The HTTP(S) agent the PVE client's requests and WebSockets share. A PVE cluster usually has a
// self-signed certificate, so besides Node's default trust a CA can be given, or the certificate
// pinned by its SHA-256 fingerprint as PVE's own tools do.

/** pveproxy drops an idle kept-alive connection after 5 s; ours go first, so a request never
 *  lands on a socket the server is closing (which a POST could not safely repeat). */
const IDLE_SOCKET_MS = 4_000;

/** SHA-256 fingerprint as Node prints it: upper-case hex pairs joined by colons. */
function normalizeFingerprint(fingerprint: string): string {
  const hex = fingerprint.replace(/[:\s]/g, '').toUpperCase();
  if (!/^[0-9A-F]{64}$/.test(hex)) {
    throw new PveError('tls', 'the PVE certificate fingerprint must be 64 hex digits (SHA-256)');
  }
  return hex.match(/../g)!.join(':');
}

/**
 * An HTTPS agent that accepts exactly one certificate, by fingerprint. Node's verification is
 * turned off (the certificate is usually self-signed) and replaced by the comparison, made when
 * the handshake is done and before the agent hands the socket to a request, so nothing (the
 * token least of all) is sent to a server that is not the pinned one. Session resumption is off
 * so that every connection shows its certificate.
 */
class PinnedAgent extends https.Agent {
  constructor(
    private readonly pinned: string,
    options: https.AgentOptions,
  ) {
    super({ ...options, rejectUnauthorized: false, maxCachedSessions: 0 });
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const socket = super.createConnection(options);
    if (!callback || !(socket instanceof TLSSocket)) return socket;
    const fail = (error: Error) => callback(error, socket);
    socket.once('error', fail);
    socket.once('secureConnect', () => {
      socket.off('error', fail);
      const actual = socket.getPeerCertificate().fingerprint256 ?? '(none)';
      if (actual === this.pinned) {
        callback(null, socket);
        return;
      }
      socket.destroy();
      callback(
        new PveError(
          'tls',
          `the PVE certificate fingerprint ${actual} is not the configured ${this.pinned}`,
        ),
        socket,
      );
    });
    return undefined;
  }
}

/** A kept-alive agent: plain HTTP, HTTPS pinned to a fingerprint, or HTTPS trusting a CA. */
export function createAgent(secure: boolean, options: PveClientOptions): http.Agent {
  const common = { keepAlive: true, timeout: IDLE_SOCKET_MS };
  if (!secure) return new http.Agent(common);
  if (options.fingerprint) {
    return new PinnedAgent(normalizeFingerprint(options.fingerprint), common);
  }
  return new https.Agent(options.ca ? { ...common, ca: options.ca } : common);
}
