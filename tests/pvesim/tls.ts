import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

// The PVE API simulator's HTTPS certificate: self-signed, made at start with the openssl CLI in a
// temporary directory (removed again), as a fresh PVE node has a self-signed certificate that
// clients pin by fingerprint or trust as its own CA.

export interface SelfSigned {
  key: string;
  cert: string;
  /** SHA-256 fingerprint, colon-separated upper-case hex (what PVE shows). */
  fingerprint: string;
}

const run = promisify(execFile);

export async function makeSelfSigned(): Promise<SelfSigned> {
  const dir = await mkdtemp(join(tmpdir(), 'pvesim-tls-'));
  try {
    const keyPath = join(dir, 'key.pem');
    const certPath = join(dir, 'cert.pem');
    await run('openssl', [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:prime256v1',
      '-nodes',
      '-keyout',
      keyPath,
      '-out',
      certPath,
      '-days',
      '7',
      '-subj',
      '/CN=pvesim.localhost/O=Topoplay PVE API simulator',
      '-addext',
      'subjectAltName=DNS:localhost,IP:127.0.0.1',
    ]);
    const [key, cert] = await Promise.all([readFile(keyPath, 'utf8'), readFile(certPath, 'utf8')]);
    return { key, cert, fingerprint: new X509Certificate(cert).fingerprint256 };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
