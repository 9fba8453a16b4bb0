import type WebSocket from 'ws';
import type { ConsoleSession, ConsoleViewer } from '../types';
import { relayRfb } from '../rfb';
import { vncAuthResponse } from './des';

// The bridge between a viewer of a Proxmox machine's console and PVE's vncwebsocket. PVE's VNC
// server wants VNC authentication with the vncproxy ticket as the password; the viewer was
// already admitted (and greeted, security None) by server/console with our own one-time ticket
// and must never learn PVE's. So the bridge is a client upstream (VNC authentication), then
// carries the viewer's ClientInit and everything after it unchanged, both ways (../rfb.ts).

export {
  CLOSE_INTERNAL_ERROR,
  CLOSE_NORMAL,
  CONSOLE_CLOSED,
  CONSOLE_LOST,
  CONSOLE_OPEN_FAILED,
} from '../rfb';

/** WebSocket close codes PVE uses when a console simply ends. */
const CLEAN_CLOSES = new Set([1000, 1001, 1005]);

export interface BridgeOptions {
  /** Told why a console failed (PVE's reason included), for the log; never the ticket. */
  onFailure?: (detail: string) => void;
}

const asBuffer = (data: WebSocket.RawData): Buffer =>
  Array.isArray(data)
    ? Buffer.concat(data)
    : Buffer.isBuffer(data)
      ? data
      : Buffer.from(new Uint8Array(data));

/** Bridges a viewer to a PVE console: `upstream` is an open (possibly paused) WebSocket to PVE's
 *  vncwebsocket. The bridge authenticates upstream with VNC authentication (password = the
 *  vncproxy ticket); from the viewer's ClientInit on it relays bytes both ways unchanged. */
export function bridgePveConsole(
  upstream: WebSocket,
  ticket: string,
  viewer: ConsoleViewer,
  options: BridgeOptions = {},
): ConsoleSession {
  const relay = relayRfb(
    {
      send: (bytes) => {
        if (upstream.readyState === upstream.OPEN) upstream.send(bytes);
      },
      close: () => upstream.close(1000),
    },
    viewer,
    {
      peer: 'PVE',
      vncResponse: (challenge) => vncAuthResponse(challenge, ticket),
      ...(options.onFailure ? { onFailure: options.onFailure } : {}),
    },
  );

  upstream.binaryType = 'nodebuffer';
  upstream.on('message', (data: WebSocket.RawData) => relay.fromUpstream(asBuffer(data)));
  upstream.on('close', (code: number) =>
    relay.upstreamEnded(CLEAN_CLOSES.has(code), `PVE closed the console (${code})`),
  );
  upstream.on('error', (error: Error) =>
    relay.upstreamEnded(false, `PVE console connection: ${error.message}`),
  );
  // openWebSocket hands the socket over paused so that nothing PVE said first is lost.
  upstream.resume();
  return relay;
}
