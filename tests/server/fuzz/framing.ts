import { connect } from 'node:net';

// Requests no well-behaved client sends, written byte for byte on a socket: bad request lines,
// header syntax, lengths and chunking. Every one is complete as far as the server can tell (none
// leaves it waiting for more bytes, which is what request timeouts are for), so each must be
// answered at once: a 4xx, or the connection closed by the HTTP parser.

export interface FramingCase {
  name: string;
  bytes: Buffer;
}

export type RawOutcome =
  | { kind: 'answered'; status: number }
  | { kind: 'closed'; status: null }
  | { kind: 'timeout'; status: null };

const crlf = (lines: string[]) => Buffer.from(lines.join('\r\n'), 'latin1');

export function framingCases(token: string): FramingCase[] {
  const auth = `Authorization: Bearer ${token}`;
  const post = (path: string, headers: string[], body: string) =>
    crlf([`POST ${path} HTTP/1.1`, 'Host: x', auth, ...headers, '', body]);
  return [
    { name: 'garbage request line', bytes: crlf(['GARBAGE', '', '']) },
    { name: 'no Host header', bytes: crlf(['GET /api/user HTTP/1.1', auth, '', '']) },
    { name: 'unknown HTTP version', bytes: crlf(['GET /api/user HTTP/9.9', 'Host: x', '', '']) },
    { name: 'NUL in the method', bytes: crlf(['G\0T /api/user HTTP/1.1', 'Host: x', '', '']) },
    { name: 'space in the target', bytes: crlf(['GET /api/ user HTTP/1.1', 'Host: x', '', '']) },
    {
      name: 'absolute-form target',
      bytes: crlf(['GET http://evil.test/api/user HTTP/1.1', 'Host: x', auth, '', '']),
    },
    { name: 'asterisk target', bytes: crlf(['GET * HTTP/1.1', 'Host: x', '', '']) },
    {
      name: 'header without a colon',
      bytes: crlf(['GET /api/user HTTP/1.1', 'Host: x', 'NoColonHere', '', '']),
    },
    {
      name: 'NUL in a header value',
      bytes: crlf(['GET /api/user HTTP/1.1', 'Host: x', 'X-A: a\0b', '', '']),
    },
    {
      name: 'folded header line',
      bytes: crlf(['GET /api/user HTTP/1.1', 'Host: x', 'X-A: a', ' folded', '', '']),
    },
    {
      name: 'bare LF line endings',
      bytes: Buffer.from('GET /api/user HTTP/1.1\nHost: x\n\n', 'latin1'),
    },
    {
      name: 'a 20 KB header',
      bytes: crlf(['GET /api/user HTTP/1.1', 'Host: x', `X-Big: ${'a'.repeat(20_000)}`, '', '']),
    },
    {
      name: 'a 20 KB cookie',
      bytes: crlf([
        'GET /api/user HTTP/1.1',
        'Host: x',
        `Cookie: topomojo.mks=${'%E0'.repeat(7_000)}`,
        '',
        '',
      ]),
    },
    {
      name: 'negative Content-Length',
      bytes: post('/api/gamespace/grade', ['Content-Length: -5'], '{}'),
    },
    {
      name: 'non-numeric Content-Length',
      bytes: post('/api/gamespace/grade', ['Content-Length: abc'], '{}'),
    },
    {
      name: 'two different Content-Lengths',
      bytes: post('/api/gamespace/grade', ['Content-Length: 2', 'Content-Length: 3'], '{}'),
    },
    {
      name: 'Content-Length and chunked together',
      bytes: post(
        '/api/gamespace/grade',
        ['Content-Type: application/json', 'Content-Length: 2', 'Transfer-Encoding: chunked'],
        '2\r\n{}\r\n0\r\n\r\n',
      ),
    },
    {
      name: 'bad chunk size',
      bytes: post('/api/gamespace/grade', ['Transfer-Encoding: chunked'], 'zz\r\n{}\r\n0\r\n\r\n'),
    },
    {
      name: 'overflowing chunk size',
      bytes: post('/api/gamespace/grade', ['Transfer-Encoding: chunked'], '1ffffffffffffffff\r\n'),
    },
    {
      name: 'unknown transfer coding',
      bytes: post('/api/gamespace/grade', ['Transfer-Encoding: gzip, chunked'], '0\r\n\r\n'),
    },
    {
      name: 'chunked truncated JSON',
      bytes: post(
        '/api/gamespace/grade',
        ['Content-Type: application/json', 'Transfer-Encoding: chunked'],
        '5\r\n{"id"\r\n0\r\n\r\n',
      ),
    },
    {
      name: 'chunked multipart whose part is not form-data',
      bytes: post(
        '/api/file/upload',
        ['Content-Type: multipart/form-data; boundary=b', 'Transfer-Encoding: chunked'],
        (() => {
          const body =
            '--b\r\nContent-Disposition: attachment; filename="a.iso"\r\n\r\nxx\r\n--b--\r\n';
          return `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
        })(),
      ),
    },
    {
      name: 'a well-formed request followed by garbage on the same connection',
      bytes: Buffer.concat([
        crlf(['GET /api/health/version HTTP/1.1', 'Host: x', '', '']),
        crlf(['\0\0\0 GARBAGE', '', '']),
      ]),
    },
    {
      name: 'WebSocket upgrade to a plain route',
      bytes: crlf([
        'GET /api/user HTTP/1.1',
        'Host: x',
        auth,
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: not-base64!',
        '',
        '',
      ]),
    },
    {
      name: 'WebSocket upgrade to the hub with a bad key and version',
      bytes: crlf([
        'GET /hub?access_token=%E0%A4%A HTTP/1.1',
        'Host: x',
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 99',
        'Sec-WebSocket-Key: x',
        '',
        '',
      ]),
    },
    {
      name: 'WebSocket upgrade to the console with a garbage ticket',
      bytes: crlf([
        'GET /api/console/vnc/..%2F..?ticket=%zz HTTP/1.1',
        'Host: x',
        'Connection: Upgrade',
        'Upgrade: websocket',
        'Sec-WebSocket-Version: 13',
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==',
        '',
        '',
      ]),
    },
  ];
}

/** Writes the bytes and waits for the first status line, the connection to close, or the timeout. */
export function sendRaw(baseUrl: string, bytes: Buffer, timeoutMs: number): Promise<RawOutcome> {
  const { hostname, port } = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let received = '';
    let settled = false;
    const finish = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const timer = setTimeout(() => finish({ kind: 'timeout', status: null }), timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received);
      if (status) finish({ kind: 'answered', status: Number(status[1]) });
    });
    socket.on('error', () => finish({ kind: 'closed', status: null }));
    socket.on('close', () => finish({ kind: 'closed', status: null }));
  });
}
