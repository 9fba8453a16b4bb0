/**
 * Tests of the PVE API SIMULATOR's schema checks (tests/pvesim/schema.ts): requests are refused
 * with PVE's statuses and per-parameter reasons, and replies are held to the published shapes.
 */
import { describe, expect, it } from 'vitest';
import { checkReply, checkRequest, endpoints, type RequestRefusal } from './schema';

const CLONE = '/nodes/pve1/qemu/9000/clone';
const CONFIG = '/nodes/pve1/qemu/101/config';
const UPID = 'UPID:pve1:0000A1B2:0001C3D4:6750A0B0:qmclone:9000:topoplay@pve!driver:';

function refusal(result: ReturnType<typeof checkRequest>): RequestRefusal {
  if (result.ok) throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
  return result;
}

function errorsOf(method: string, path: string, params: Record<string, string>) {
  const result = refusal(checkRequest(method, path, params));
  expect(result.status).toBe(400);
  expect(result.message).toBe('Parameter verification failed.');
  return result.errors;
}

describe('checkRequest: routing', () => {
  it('passes a valid clone request with its parameters typed and the path bound', () => {
    const result = checkRequest('POST', CLONE, {
      newid: '101',
      name: 'lab-1.example',
      full: '0',
      pool: 'topoplay',
      target: 'pve2',
      storage: 'local-lvm',
    });
    expect(result).toEqual({
      ok: true,
      endpoint: 'POST /nodes/{node}/qemu/{vmid}/clone',
      pathParams: { node: 'pve1', vmid: '9000' },
      params: {
        node: 'pve1',
        vmid: 9000,
        newid: 101,
        name: 'lab-1.example',
        full: false,
        pool: 'topoplay',
        target: 'pve2',
        storage: 'local-lvm',
      },
    });
  });

  it('answers 501 with PVE message for an unknown path or a method the path does not have', () => {
    expect(checkRequest('GET', '/nodes/pve1/bogus', {})).toEqual({
      ok: false,
      status: 501,
      message: "Method 'GET /nodes/pve1/bogus' not implemented",
      errors: {},
    });
    const wrongMethod = refusal(checkRequest('post', '/version', {}));
    expect(wrongMethod.status).toBe(501);
    expect(wrongMethod.message).toBe("Method 'POST /version' not implemented");
  });

  it('accepts the /api2/json prefix, a trailing slash and percent-encoded path segments', () => {
    const result = checkRequest(
      'GET',
      `/api2/json/nodes/pve1/tasks/${encodeURIComponent(UPID)}/status/`,
      {},
    );
    expect(result).toMatchObject({
      ok: true,
      endpoint: 'GET /nodes/{node}/tasks/{upid}/status',
      pathParams: { node: 'pve1', upid: UPID },
    });
  });

  it('gives a volume ID its slash, encoded or not, as the last parameter of a content path', () => {
    const endpoint = 'DELETE /nodes/{node}/storage/{storage}/content/{volume}';
    for (const volume of ['local:iso/x.iso', encodeURIComponent('local:iso/x.iso')]) {
      expect(
        checkRequest('DELETE', `/nodes/pve1/storage/local/content/${volume}`, {}),
      ).toMatchObject({
        ok: true,
        endpoint,
        pathParams: { storage: 'local', volume: 'local:iso/x.iso' },
      });
    }
    expect(checkRequest('DELETE', '/nodes/pve1/storage/local/content', {})).toMatchObject({
      ok: false,
      status: 501,
    });
  });

  it('routes both pool endpoints the current API has', () => {
    expect(checkRequest('POST', '/pools', { poolid: 'topoplay' })).toMatchObject({
      ok: true,
      endpoint: 'POST /pools',
    });
    expect(checkRequest('DELETE', '/pools/topoplay', {})).toMatchObject({
      ok: true,
      endpoint: 'DELETE /pools/{poolid}',
      params: { poolid: 'topoplay' },
    });
    expect(endpoints()).toEqual(
      expect.arrayContaining(['GET /pools', 'DELETE /pools', 'GET /pools/{poolid}']),
    );
  });

  it('lists every endpoint the driver calls', () => {
    expect(endpoints()).toHaveLength(47);
    expect(endpoints()).toContain('GET /nodes/{node}/qemu/{vmid}/vncwebsocket');
    // qm create: machines with empty disks, when a template names no VM template to clone.
    expect(endpoints()).toContain('POST /nodes/{node}/qemu');
  });
});

describe('checkRequest: parameter verification', () => {
  it("takes an array parameter's key repeated as a list, and refuses a scalar sent twice", () => {
    const exec = '/nodes/pve1/qemu/101/agent/exec';
    const given = checkRequest('POST', exec, { command: ['/bin/sh', '-c', 'true'] });
    expect(given).toMatchObject({ ok: true, params: { command: ['/bin/sh', '-c', 'true'] } });
    expect(checkRequest('POST', exec, { command: 'uptime' })).toMatchObject({
      ok: true,
      params: { command: ['uptime'] },
    });
    expect(
      refusal(checkRequest('PUT', '/cluster/sdn/vnets/tpabc', { alias: ['a', 'b'] })).errors,
    ).toEqual({ alias: "type check ('string') failed - got ARRAY" });
  });

  it('refuses a clone without newid', () => {
    expect(errorsOf('POST', CLONE, {})).toEqual({
      newid: 'property is missing and it is not optional',
    });
  });

  it('refuses a vmid below 100 in the path', () => {
    expect(errorsOf('POST', '/nodes/pve1/qemu/99/clone', { newid: '101' })).toEqual({
      vmid: 'value must have a minimum value of 100',
    });
  });

  it('refuses a parameter the schema does not define', () => {
    expect(errorsOf('POST', CLONE, { newid: '101', colour: 'blue' })).toEqual({
      colour:
        'property is not defined in schema and the schema does not allow additional properties',
    });
  });

  it('refuses a value outside an enumeration, naming the allowed values', () => {
    expect(errorsOf('GET', '/cluster/resources', { type: 'vms' })).toEqual({
      type: "value 'vms' does not have a value in the enumeration 'vm, storage, node, sdn'",
    });
  });

  it('refuses values of the wrong type, and reports every bad parameter at once', () => {
    expect(errorsOf('POST', '/nodes/pve1/qemu/abc/clone', { newid: '101', full: 'maybe' })).toEqual(
      {
        vmid: "type check ('integer') failed - got 'abc'",
        full: "type check ('boolean') failed - got 'maybe'",
      },
    );
  });

  it('accepts booleans as 1/0 and as true/false', () => {
    for (const [raw, typed] of [
      ['1', true],
      ['0', false],
      ['true', true],
      ['false', false],
    ] as const) {
      expect(checkRequest('POST', CLONE, { newid: '101', full: raw })).toMatchObject({
        ok: true,
        params: { full: typed },
      });
    }
  });

  it('refuses a bad tag list and accepts tags separated by ; , or space', () => {
    expect(errorsOf('PUT', CONFIG, { tags: 'topoplay;bad!tag' }).tags).toMatch(
      /^invalid format - .*bad!tag/,
    );
    expect(checkRequest('PUT', CONFIG, { tags: 'topoplay;ws-12,lab_1 x.y' }).ok).toBe(true);
  });

  it('refuses a vnet id of 9 characters and one that does not start with a letter', () => {
    const base = { zone: 'topoplay', tag: '1001' };
    expect(errorsOf('POST', '/cluster/sdn/vnets', { ...base, vnet: 'tpnet1234' }).vnet).toMatch(
      /^invalid format - .*8 characters/,
    );
    expect(errorsOf('POST', '/cluster/sdn/vnets', { ...base, vnet: '1tpnet' }).vnet).toMatch(
      /^invalid format - /,
    );
    expect(checkRequest('POST', '/cluster/sdn/vnets', { ...base, vnet: 'tpnet123' }).ok).toBe(true);
  });

  it('checks the path parameters by their formats', () => {
    expect(errorsOf('GET', '/nodes/pve_1/qemu', {}).node).toMatch(/^invalid format - /);
    expect(errorsOf('GET', '/nodes/pve1/storage/9bad/content', {}).storage).toMatch(
      /^invalid format - /,
    );
  });

  it('refuses a VM name that is not a DNS name and a snapshot name over 40 characters', () => {
    expect(errorsOf('POST', CLONE, { newid: '101', name: 'lab 1' }).name).toMatch(
      /^invalid format - /,
    );
    expect(
      errorsOf('POST', '/nodes/pve1/qemu/101/snapshot', { snapname: `s${'x'.repeat(40)}` }),
    ).toEqual({ snapname: 'value may only be 40 characters long' });
  });

  it('refuses a value that does not match a pattern the data gives', () => {
    expect(errorsOf('PUT', CONFIG, { bootdisk: 'floppy0' })).toEqual({
      bootdisk: 'value does not match the regex pattern',
    });
  });

  it('reports a missing required companion parameter', () => {
    expect(
      errorsOf('POST', '/access/ticket', { username: 'root@pam', password: 'x', path: '/' }),
    ).toEqual({ privs: "missing property - 'path' requires this property" });
  });
});

describe('checkRequest: key=value properties', () => {
  it('accepts a NIC as model=MAC with a bridge, inside the net family range', () => {
    const net = 'virtio=BC:24:11:00:00:01,bridge=tpnet1,firewall=1';
    expect(checkRequest('PUT', CONFIG, { net0: net, net31: 'virtio,bridge=vmbr0' })).toMatchObject({
      ok: true,
      params: { net0: net },
    });
  });

  it('refuses a NIC index outside the family, and a padded one', () => {
    expect(errorsOf('PUT', CONFIG, { net32: 'virtio,bridge=vmbr0', net01: 'virtio' })).toEqual({
      net32:
        'property is not defined in schema and the schema does not allow additional properties',
      net01:
        'property is not defined in schema and the schema does not allow additional properties',
    });
  });

  it('refuses unknown keys, bad bridge names and bad key values inside a NIC, naming the key', () => {
    const errors = errorsOf('POST', CONFIG, {
      net0: 'virtio,bridg=vmbr0',
      net1: 'virtio,bridge=vm br0',
      net2: 'virtio,bridge=vmbr0,tag=5000',
      net3: 'bridge=vmbr0',
    });
    expect(errors.net0).toMatch(
      /^invalid format - format error\nnet0\.bridg: property is not defined/,
    );
    expect(errors.net1).toMatch(/^invalid format - format error\nnet1\.bridge: /);
    expect(errors.net2).toContain('net2.tag: value must have a maximum value of 4094');
    expect(errors.net3).toContain('net3.model: property is missing and it is not optional');
  });

  it('refuses a unicast-looking MAC that is multicast, and a duplicated key', () => {
    const errors = errorsOf('PUT', CONFIG, {
      net0: 'virtio=01:00:5E:00:00:01,bridge=vmbr0',
      net1: 'virtio=BC:24:11:00:00:01,model=e1000',
    });
    expect(errors.net0).toContain('net0.macaddr: invalid format');
    expect(errors.net1).toMatch(/^invalid format - duplicate key/);
  });

  it('accepts the ide2 CD-ROM values the driver sets, through ide2 and the cdrom alias', () => {
    for (const value of ['local:iso/tools.iso,media=cdrom', 'none,media=cdrom']) {
      expect(checkRequest('PUT', CONFIG, { ide2: value }).ok).toBe(true);
      expect(checkRequest('PUT', CONFIG, { cdrom: value }).ok).toBe(true);
    }
    expect(errorsOf('PUT', CONFIG, { ide2: 'local:iso/tools.iso,media=floppy' }).ide2).toContain(
      "ide2.media: value 'floppy' does not have a value in the enumeration 'cdrom, disk'",
    );
    expect(errorsOf('PUT', CONFIG, { ide2: 'not a volume,media=cdrom' }).ide2).toContain(
      'ide2.file: invalid format',
    );
  });

  it('checks the cloud-init options: ipconfig addresses, cicustom volumes, URL-encoded keys', () => {
    const good = {
      ide3: 'local-lvm:cloudinit',
      ciuser: 'player',
      cipassword: 'a: b # c',
      ciupgrade: '0',
      sshkeys: encodeURIComponent('ssh-ed25519 AAAA one\nssh-rsa BBBB two'),
      nameserver: '10.0.0.53 9.9.9.9',
      ipconfig0: 'ip=10.0.0.5/24,gw=10.0.0.1',
      ipconfig1: 'ip=dhcp',
      ipconfig2: 'ip6=fd00::5/64,gw6=fd00::1',
      cicustom: 'user=snip:snippets/101-user.yaml,network=snip:snippets/101-network.yaml',
    };
    expect(checkRequest('PUT', CONFIG, good).ok).toBe(true);
    const errors = errorsOf('PUT', CONFIG, {
      sshkeys: 'ssh-ed25519 AAAA one',
      ipconfig0: 'ip=10.0.0.5',
      ipconfig1: 'ip=10.0.0.5/24,gw=not-an-ip',
      ipconfig2: 'address=10.0.0.5/24',
      ipconfig32: 'ip=dhcp',
      cicustom: 'user=no-volume',
      nameserver: 'dns.example',
    });
    expect(errors.sshkeys).toBe('invalid format - invalid urlencoded string: ssh-ed25519 AAAA one');
    expect(errors.ipconfig0).toContain(
      'ipconfig0.ip: invalid format - value does not look like a valid ipv4 network configuration',
    );
    expect(errors.ipconfig1).toContain(
      'ipconfig1.gw: invalid format - value does not look like a valid IPv4 address',
    );
    expect(errors.ipconfig2).toContain('ipconfig2.address: property is not defined in schema');
    expect(errors.ipconfig32).toContain('property is not defined in schema');
    expect(errors.cicustom).toContain(
      "cicustom.user: invalid format - unable to parse volume ID 'no-volume'",
    );
    expect(errors.nameserver).toMatch(/^invalid format - /);
  });

  it('checks each id of a configuration id list', () => {
    expect(checkRequest('PUT', CONFIG, { delete: 'net1,ide2' }).ok).toBe(true);
    expect(errorsOf('PUT', CONFIG, { delete: 'net1,2bad' }).delete).toMatch(/^invalid format - /);
  });
});

describe('checkReply', () => {
  it('accepts a well-formed /cluster/nextid reply, as a number or as PVE sends it, a string', () => {
    expect(checkReply('GET /cluster/nextid', 100)).toEqual([]);
    expect(checkReply('GET /cluster/nextid', '100')).toEqual([]);
  });

  it('refuses an object where a string is expected', () => {
    expect(checkReply('POST /nodes/{node}/qemu/{vmid}/clone', { upid: 'x' })).toEqual([
      "data: type check ('string') failed - got an object",
    ]);
  });

  it('refuses null for a string reply but accepts it for the optional one of POST config', () => {
    expect(checkReply('POST /nodes/{node}/qemu/{vmid}/clone', null)).toHaveLength(1);
    expect(checkReply('POST /nodes/{node}/qemu/{vmid}/config', null)).toEqual([]);
    expect(checkReply('PUT /nodes/{node}/qemu/{vmid}/config', null)).toEqual([]);
    expect(checkReply('PUT /nodes/{node}/qemu/{vmid}/config', 'UPID:x')).toHaveLength(1);
  });

  it('names a missing required property, a bad enumeration value and a wrong type in a task status', () => {
    const problems = checkReply('GET /nodes/{node}/tasks/{upid}/status', {
      upid: UPID,
      node: 'pve1',
      pid: 'abc',
      pstart: 1,
      starttime: 1,
      type: 'qmclone',
      id: '9000',
      status: 'paused',
    });
    expect(problems).toEqual([
      "data.pid: type check ('integer') failed - got 'abc'",
      "data.status: value 'paused' does not have a value in the enumeration 'running, stopped'",
      'data.user: property is missing and it is not optional',
    ]);
  });

  it('checks every item of an array reply', () => {
    const vm = { id: 'qemu/101', type: 'qemu', vmid: 101, node: 'pve1', template: 0 };
    expect(checkReply('GET /cluster/resources', [vm, { ...vm, type: undefined }])).toEqual([
      'data[1].type: property is missing and it is not optional',
    ]);
  });

  it('refuses keys a reply that allows no additional properties does not list', () => {
    const proxy = { cert: 'c', port: '5901', ticket: 't', upid: UPID, user: 'u@pve' };
    expect(checkReply('POST /nodes/{node}/qemu/{vmid}/vncproxy', proxy)).toEqual([]);
    expect(checkReply('POST /nodes/{node}/qemu/{vmid}/vncproxy', { ...proxy, extra: 1 })).toEqual([
      'data.extra: property is not defined in schema and the schema does not allow additional properties',
    ]);
  });

  it('types family members in a config reply and requires what PVE marks required', () => {
    const endpoint = 'GET /nodes/{node}/qemu/{vmid}/config';
    expect(
      checkReply(endpoint, { digest: 'd', net0: 'virtio,bridge=vmbr0', memory: '512' }),
    ).toEqual([]);
    expect(checkReply(endpoint, { net0: 'virtio,bridge=vmbr0' })).toEqual([
      'data.digest: property is missing and it is not optional',
    ]);
    expect(checkReply(endpoint, { digest: 'd', net0: { model: 'virtio' } })).toEqual([
      "data.net0: type check ('string') failed - got an object",
    ]);
    expect(
      checkReply('GET /nodes/{node}/qemu/{vmid}/status/current', { vmid: 101, status: 'running' }),
    ).toEqual(['data.ha: property is missing and it is not optional']);
  });

  it('reports an endpoint it has no schema for', () => {
    expect(checkReply('GET /nope', {})).toEqual(["no schema for endpoint 'GET /nope'"]);
  });
});
