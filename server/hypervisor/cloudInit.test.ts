import { describe, expect, it } from 'vitest';
import {
  cloudHostname,
  cloudSettingsOf,
  GUEST_SETTINGS_DIR,
  metaData,
  networkConfig,
  userData,
  type CloudInitMachine,
} from './cloudInit';

// The NoCloud seed's files, as both drivers give them to cloud-init: a challenge's flag with YAML's
// special characters reaches its file byte for byte, credentials and addresses come from the
// documented `cloud.*` settings, and every NIC is configured so that boot never waits.

const FLAG = `a: b # c\n- d 'e' "f" \\ {g} [h] &i *j !k |l >m %n @o \`p\` ${'\u007f\u0085'}é😀 \ud800`;

const machine = (fields: Partial<CloudInitMachine> = {}): CloudInitMachine => ({
  hostname: 'web',
  instanceId: 'topoplay-1',
  nics: [
    { index: 0, mac: '52:54:00:AA:BB:01' },
    { index: 1, mac: '52:54:00:aa:bb:02' },
  ],
  guestSettings: [],
  ...fields,
});

/** The document after its `#cloud-config` line: JSON, which YAML parsers read as YAML. */
function parsedUserData(text: string): Record<string, unknown> {
  const [first, ...rest] = text.split('\n');
  expect(first).toBe('#cloud-config');
  return JSON.parse(rest.join('\n')) as Record<string, unknown>;
}

interface WrittenFile {
  path: string;
  content: string;
  encoding: string;
  permissions: string;
}

const filesOf = (data: Record<string, unknown>) => data.write_files as WrittenFile[];
const decoded = (file: WrittenFile | undefined) =>
  Buffer.from(file?.content ?? '', 'base64').toString('utf8');

describe('cloud-init user-data', () => {
  it('writes a flag with YAML-special characters into its file byte for byte', () => {
    const text = userData(machine({ guestSettings: [{ key: 'guestinfo.flag', value: FLAG }] }));
    const files = filesOf(parsedUserData(text));
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({
      path: `${GUEST_SETTINGS_DIR}/flag`,
      encoding: 'b64',
      permissions: '0644',
    });
    // The lone surrogate cannot be written to a file: it becomes U+FFFD, the rest is kept.
    expect(decoded(files[0])).toBe(FLAG.replace('\ud800', '\ufffd'));
  });

  it('leaves no character PyYAML refuses in the stream', () => {
    const text = userData(
      machine({
        hostname: 'h',
        guestSettings: [
          { key: 'cloud.user', value: 'player' },
          { key: 'cloud.password', value: FLAG },
        ],
      }),
    );
    // PyYAML's printable set: tab, line breaks, U+0020..U+007E, U+0085, U+00A0.. but U+FFFE/F.
    const unprintable = [...text].filter((c) => {
      const code = c.codePointAt(0)!;
      const printable =
        code === 0x09 ||
        code === 0x0a ||
        code === 0x0d ||
        (code >= 0x20 && code <= 0x7e) ||
        code === 0x85 ||
        (code >= 0xa0 && code <= 0xd7ff) ||
        (code >= 0xe000 && code <= 0xfffd) ||
        code >= 0x10000;
      return !printable;
    });
    expect(unprintable).toEqual([]);
    expect(text).not.toMatch(/\p{Cs}/u);
    const data = parsedUserData(text);
    const users = data.users as Array<string | Record<string, unknown>>;
    expect(users[1]).toMatchObject({
      name: 'player',
      plain_text_passwd: FLAG.replace('\ud800', '\ufffd'),
      lock_passwd: false,
    });
  });

  it('names the machine and keeps the last value of a key set twice', () => {
    const data = parsedUserData(
      userData(
        machine({
          guestSettings: [
            { key: 'guestinfo.flag', value: 'old' },
            { key: 'guestinfo.flag', value: 'new' },
            { key: 'guestinfo.../etc/passwd', value: 'x' },
          ],
        }),
      ),
    );
    expect(data).toMatchObject({ hostname: 'web', preserve_hostname: false });
    const files = filesOf(data);
    expect(files.map((f) => f.path)).toEqual([`${GUEST_SETTINGS_DIR}/flag`]);
    expect(decoded(files[0])).toBe('new');
  });

  it('creates the user the settings name, with its password, keys and sudo', () => {
    const data = parsedUserData(
      userData(
        machine({
          guestSettings: [
            { key: 'guestinfo.cloud.user', value: 'player' },
            { key: 'guestinfo.cloud.password', value: 'pa:ss #1' },
            { key: 'guestinfo.cloud.ssh_authorized_keys', value: 'ssh-ed25519 AAAA one' },
            { key: 'cloud.ssh_authorized_keys', value: 'ssh-ed25519 BBBB two' },
            { key: 'cloud.sudo', value: 'true' },
          ],
        }),
      ),
    );
    expect(data.users).toEqual([
      'default',
      {
        name: 'player',
        shell: '/bin/bash',
        lock_passwd: false,
        plain_text_passwd: 'pa:ss #1',
        ssh_authorized_keys: ['ssh-ed25519 AAAA one', 'ssh-ed25519 BBBB two'],
        sudo: 'ALL=(ALL) NOPASSWD:ALL',
      },
    ]);
    expect(data.ssh_pwauth).toBe(true);
    // The password's file is root's alone.
    const password = filesOf(data).find((f) => f.path.endsWith('/cloud.password'));
    expect(password?.permissions).toBe('0600');
  });

  it("gives a password and keys to the image's default user when no user is named", () => {
    const data = parsedUserData(
      userData(
        machine({
          guestSettings: [
            { key: 'cloud.password', value: 'secret' },
            { key: 'cloud.ssh_authorized_keys', value: 'ssh-rsa AAAA x' },
          ],
        }),
      ),
    );
    expect(data.users).toBeUndefined();
    expect(data).toMatchObject({
      password: 'secret',
      chpasswd: { expire: false },
      ssh_authorized_keys: ['ssh-rsa AAAA x'],
    });
  });

  it('ignores, and says why, a user name or an address it cannot use', () => {
    const cloud = cloudSettingsOf([
      { key: 'cloud.user', value: 'Root User' },
      { key: 'cloud.ip0', value: '10.0.0.5' },
      { key: 'cloud.gw1', value: '10.0.0.1' },
      { key: 'cloud.colour', value: 'red' },
    ]);
    expect(cloud.user).toBeNull();
    expect(cloud.addresses.size).toBe(0);
    expect(cloud.ignored.map((i) => i.key)).toEqual([
      'cloud.user',
      'cloud.ip0',
      'cloud.colour',
      'cloud.gw1',
    ]);
  });
});

describe('cloud-init meta-data and network-config', () => {
  it('gives the instance-id and the hostname', () => {
    expect(JSON.parse(metaData(machine()))).toEqual({
      'instance-id': 'topoplay-1',
      'local-hostname': 'web',
    });
  });

  it('asks DHCP on every NIC by its MAC, optional, unless the settings give addresses', () => {
    const plain = JSON.parse(networkConfig(machine())) as {
      version: number;
      ethernets: Record<string, Record<string, unknown>>;
    };
    expect(plain.version).toBe(2);
    expect(plain.ethernets).toEqual({
      eth0: {
        match: { macaddress: '52:54:00:aa:bb:01' },
        'set-name': 'eth0',
        dhcp4: true,
        dhcp6: false,
        optional: true,
      },
      eth1: {
        match: { macaddress: '52:54:00:aa:bb:02' },
        'set-name': 'eth1',
        dhcp4: true,
        dhcp6: false,
        optional: true,
      },
    });
    const fixed = JSON.parse(
      networkConfig(
        machine({
          guestSettings: [
            { key: 'guestinfo.cloud.ip0', value: '10.1.2.3/24' },
            { key: 'guestinfo.cloud.gw0', value: '10.1.2.1' },
            { key: 'cloud.ip1', value: 'none' },
            { key: 'cloud.dns', value: '10.1.2.53, 9.9.9.9' },
          ],
        }),
      ),
    ) as { ethernets: Record<string, Record<string, unknown>> };
    expect(fixed.ethernets.eth0).toMatchObject({
      dhcp4: false,
      optional: true,
      addresses: ['10.1.2.3/24'],
      routes: [{ to: '0.0.0.0/0', via: '10.1.2.1' }],
      nameservers: { addresses: ['10.1.2.53', '9.9.9.9'] },
    });
    expect(fixed.ethernets.eth1).toEqual({
      match: { macaddress: '52:54:00:aa:bb:02' },
      'set-name': 'eth1',
      dhcp4: false,
      dhcp6: false,
      optional: true,
    });
  });

  it('makes a hostname a guest accepts from any machine name', () => {
    expect(cloudHostname('web_01.lab')).toBe('web-01-lab');
    expect(cloudHostname('--')).toBe('machine');
    expect(cloudHostname('x'.repeat(80))).toHaveLength(63);
  });
});
