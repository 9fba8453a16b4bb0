import type http from 'node:http';
import WebSocket from 'ws';
import type { PveParams } from './clientTypes';
import { encodeParams, type PveConnection } from './connection';
import { answerError, parseBody, PveError, transportError } from './pveErrors';

// WebSockets to the PVE API (vncwebsocket), with the client's credentials and TLS settings.

/** A WebSocket to an API path, paused once open; a PveError when PVE refuses it or never opens it. */
export async function openWebSocket(
  connection: PveConnection,
  path: string,
  params?: PveParams,
): Promise<WebSocket> {
  await connection.signIn();
  const { root, agent, timeoutMs } = connection;
  const encoded = encodeParams(params);
  const url = `${root.replace(/^http/, 'ws')}${path}${encoded ? `?${encoded}` : ''}`;
  // pveproxy relays binary frames; noVNC asks for the `binary` subprotocol, and so do we.
  const socket = new WebSocket(url, ['binary'], {
    agent,
    headers: connection.webSocketCredentials(),
  });
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (error: PveError | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.off('open', onOpen);
      socket.off('error', onError);
      socket.off('unexpected-response', onRefused);
      if (!error) return resolve(socket);
      socket.on('error', () => {});
      socket.terminate();
      reject(error);
    };
    // Paused at once: a server that speaks first (VNC does) could otherwise have its first
    // frames emitted, from bytes that came with the upgrade, before the caller listens.
    const onOpen = () => {
      socket.pause();
      settle(null);
    };
    const onError = (error: Error) => settle(transportError('GET', path, error));
    const onRefused = (_request: http.ClientRequest, response: http.IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = parseBody(Buffer.concat(chunks).toString('utf8'));
        const status = response.statusCode ?? 0;
        settle(answerError('GET', path, status, response.statusMessage ?? '', body));
      });
    };
    const timer = setTimeout(
      () =>
        settle(
          new PveError('timeout', `PVE GET ${path}: no WebSocket in ${timeoutMs} ms`, { path }),
        ),
      timeoutMs,
    );
    socket.on('open', onOpen);
    socket.on('error', onError);
    socket.on('unexpected-response', onRefused);
  });
}
