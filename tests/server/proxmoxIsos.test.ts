import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PveHttpError } from '../pvesim/errors';
import { startPveSimulator, type PveSimulator } from '../pvesim/simulator';
import { SEED_PASSWORD, startTestServer, type TestServer } from './harness';
import { signIn } from './oidc';

// ISO files with HYPERVISOR=proxmox, through the real server and the PVE API simulator: an upload
// is copied to the cluster's ISO storage (on every node, since `local` is each node's own) before
// it counts, so the machines can mount it; a delete removes the cluster's copies first; and an
// upload the cluster refuses leaves nothing behind on either side.

const TINY_ISO = readFileSync(join(import.meta.dirname, '../fixtures/tiny.iso'));
const NODES = ['pve1', 'pve2', 'pve3'];

describe('ISO files on a Proxmox cluster (PVE API simulator)', () => {
  let sim: PveSimulator;
  let server: TestServer;
  let token = '';
  let wsId = '';
  /** When set, the simulator refuses uploads with this reason. */
  let refuseUploads: string | null = null;

  const isoDir = () => join(server.dataDir, 'isos', wsId);
  const local = () => (existsSync(isoDir()) ? readdirSync(isoDir()) : []);
  const onCluster = (file: string) =>
    NODES.map((node) => sim.isoFiles(node).find((f) => f.volid === `local:iso/${wsId}__${file}`));

  async function upload(name: string, bytes: Buffer) {
    const form = new FormData();
    form.append('meta', `size=${bytes.length}&group-key=${wsId}`);
    form.append('file', new Blob([bytes]), name);
    const res = await fetch(`${server.url}/api/file/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      body: form,
    });
    return { status: res.status, text: await res.text() };
  }

  beforeAll(async () => {
    sim = await startPveSimulator({
      taskMs: 20,
      overrides: {
        'POST /nodes/{node}/storage/{storage}/upload': (call, own) => {
          if (refuseUploads) throw new PveHttpError(500, refuseUploads);
          return own!(call);
        },
      },
    });
    server = await startTestServer({
      env: {
        HYPERVISOR: 'proxmox',
        PROXMOX_URL: sim.url,
        PROXMOX_TOKEN_ID: sim.tokenId,
        PROXMOX_TOKEN_SECRET: sim.tokenSecret,
      },
    });
    token = (await signIn(server.url, 'creator', SEED_PASSWORD)).accessToken;
    const res = await fetch(`${server.url}/api/workspace`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Cluster ISOs' }),
    });
    wsId = ((await res.json()) as { id: string }).id;
  });
  afterAll(async () => {
    await server?.close();
    await sim?.close();
  });

  it('copies an upload to every node of the unshared ISO storage, where machines mount it', async () => {
    expect(await upload('tiny.iso', TINY_ISO)).toMatchObject({ status: 200 });
    expect(local()).toEqual(['tiny.iso']);
    const sha256 = createHash('sha256').update(TINY_ISO).digest('hex');
    expect(onCluster('tiny.iso')).toEqual(
      NODES.map(() => ({ volid: `local:iso/${wsId}__tiny.iso`, size: TINY_ISO.length, sha256 })),
    );
    expect(await server.app.driver.isoOptions(wsId)).toContain(`${wsId}/tiny.iso`);
  });

  it('removes the cluster copies with the file', async () => {
    const res = await fetch(
      `${server.url}/api/workspace/${wsId}/iso?path=${encodeURIComponent(`${wsId}/tiny.iso`)}`,
      { method: 'DELETE', headers: { authorization: `Bearer ${token}` } },
    );
    expect(res.status).toBe(200);
    expect(local()).toEqual([]);
    expect(onCluster('tiny.iso')).toEqual([undefined, undefined, undefined]);
    expect(await server.app.driver.isoOptions(wsId)).not.toContain(`${wsId}/tiny.iso`);
  });

  it('keeps nothing of an upload the cluster refuses, and says so', async () => {
    refuseUploads = 'storage local is full';
    try {
      const res = await upload('big.iso', TINY_ISO);
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(res.text).toContain('storage local is full');
      expect(local()).toEqual([]);
      expect(onCluster('big.iso')).toEqual([undefined, undefined, undefined]);
    } finally {
      refuseUploads = null;
    }
  });
});
