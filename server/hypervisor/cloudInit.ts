import { isIP } from 'node:net';
import type { GuestSetting } from './types';

// What cloud-init reads in a machine made from a cloud image: the NoCloud seed's `meta-data`,
// `user-data` and `network-config`, made from the machine's name, NICs and guest settings. The
// qemu driver writes them onto a CIDATA ISO (qemu/seed.ts); the proxmox driver hands the same
// user-data to PVE's cloud-init drive as a snippet, and the credentials and addresses as PVE's
// own options (proxmox/cloudInit.ts). One rule for both, here.
//
// Guest settings (after a challenge's `##key##` substitution) keep reaching the guest through
// fw_cfg too, for images without cloud-init. Settings named `cloud.*` (with or without the
// `guestinfo.` prefix templates give them) also configure cloud-init:
//   cloud.user                 a user to create
//   cloud.password             its password (or the image's default user's, without cloud.user)
//   cloud.ssh_authorized_keys  a public key for it; repeat the setting for more keys
//   cloud.sudo                 true: the user may sudo without a password
//   cloud.ip{N}                NIC N's address: a CIDR (`10.0.0.5/24`), `dhcp` or `none`
//   cloud.gw{N}                NIC N's default gateway, with a static address
//   cloud.dns                  name servers, separated by commas or spaces
// A NIC without `cloud.ip{N}` asks DHCP, marked optional so that a lab network without a DHCP
// server never holds the boot up. Every setting is also written as a file under
// GUEST_SETTINGS_DIR, named by its key without the `guestinfo.` prefix.

/** Where the user-data writes every guest setting as a file of its own. */
export const GUEST_SETTINGS_DIR = '/etc/topoplay/guestinfo';

export interface CloudInitMachine {
  /** The guest's hostname (cloudHostname). */
  hostname: string;
  /** Changes whenever cloud-init must run again (a new machine, new settings, a reverted disk). */
  instanceId: string;
  nics: ReadonlyArray<{ index: number; mac: string }>;
  guestSettings: readonly GuestSetting[];
}

export type NicAddress =
  { kind: 'dhcp' } | { kind: 'none' } | { kind: 'static'; address: string; gateway: string | null };

/** What the `cloud.*` settings ask for; settings that could not be used, in `ignored`. */
export interface CloudSettings {
  user: string | null;
  password: string | null;
  sshKeys: string[];
  sudo: boolean;
  /** By NIC index; a NIC not listed asks DHCP. */
  addresses: Map<number, NicAddress>;
  nameservers: string[];
  ignored: Array<{ key: string; reason: string }>;
}

/** A setting's key without the `guestinfo.` prefix templates give keys. */
export const bareKey = (key: string): string => key.replace(/^guestinfo\./, '');

/** A hostname a guest accepts: letters, digits and dashes, at most 63 of them. */
export const cloudHostname = (name: string): string =>
  name
    .replace(/[^A-Za-z0-9-]/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 63) || 'machine';

const USER_NAME = /^[a-z_][a-z0-9_-]{0,31}$/;
const TRUE = /^(1|true|yes|on)$/i;

function cidrOf(value: string): string | null {
  const [address = '', prefix, ...rest] = value.split('/');
  const family = isIP(address);
  if (!family || rest.length > 0 || prefix === undefined || !/^\d{1,3}$/.test(prefix)) return null;
  return Number(prefix) <= (family === 4 ? 32 : 128) ? `${address}/${Number(prefix)}` : null;
}

/** The `cloud.*` settings; a later setting of a key replaces an earlier one (keys add up). */
export function cloudSettingsOf(settings: readonly GuestSetting[]): CloudSettings {
  const result: CloudSettings = {
    user: null,
    password: null,
    sshKeys: [],
    sudo: false,
    addresses: new Map(),
    nameservers: [],
    ignored: [],
  };
  const gateways = new Map<number, string>();
  for (const { key: fullKey, value } of settings) {
    const key = bareKey(fullKey);
    if (!key.startsWith('cloud.')) continue;
    const ignore = (reason: string) => result.ignored.push({ key: fullKey, reason });
    const name = key.slice('cloud.'.length);
    const nic = /^(ip|gw)(0|[1-9]\d?)$/.exec(name);
    const text = value.trim();
    if (name === 'user') {
      if (USER_NAME.test(text)) result.user = text;
      else ignore('not a user name (lower-case letters, digits, _ and -)');
    } else if (name === 'password') {
      result.password = value;
    } else if (name === 'ssh_authorized_keys') {
      result.sshKeys.push(
        ...value
          .split(/\r?\n/)
          .map((k) => k.trim())
          .filter(Boolean),
      );
    } else if (name === 'sudo') {
      result.sudo = TRUE.test(text);
    } else if (name === 'dns') {
      const servers = text.split(/[\s,]+/).filter(Boolean);
      if (servers.every((s) => isIP(s))) result.nameservers = servers;
      else ignore('not a list of IP addresses');
    } else if (nic?.[1] === 'ip') {
      const index = Number(nic[2]);
      const cidr = cidrOf(text);
      if (/^(dhcp|none)$/i.test(text)) {
        result.addresses.set(index, { kind: text.toLowerCase() as 'dhcp' | 'none' });
      } else if (cidr)
        result.addresses.set(index, { kind: 'static', address: cidr, gateway: null });
      else ignore('not an address in CIDR form, dhcp or none');
    } else if (nic?.[1] === 'gw') {
      if (isIP(text)) gateways.set(Number(nic[2]), text);
      else ignore('not an IP address');
    } else {
      ignore('not a cloud-init setting Topoplay knows');
    }
  }
  for (const [index, gateway] of gateways) {
    const address = result.addresses.get(index);
    if (address?.kind === 'static') address.gateway = gateway;
    else result.ignored.push({ key: `cloud.gw${index}`, reason: 'no static address on that NIC' });
  }
  return result;
}

/**
 * A YAML document that cannot be misread: JSON, which YAML parsers read as YAML, with what
 * PyYAML (cloud-init's parser) refuses to find in a stream escaped: DEL and the C1 controls,
 * U+FFFE and U+FFFF; lone surrogates (which no file can hold) become U+FFFD.
 */
export function yamlText(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    typeof v === 'string' ? v.replace(/\p{Cs}/gu, '\ufffd') : v,
  ).replace(
    /[\u007f-\u009f\ufffe\uffff]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** A key that can be a file name under GUEST_SETTINGS_DIR. */
const fileNameOf = (key: string): string | null => {
  const name = bareKey(key);
  return /^[\w.-]{1,200}$/.test(name) && !/^\.{1,2}$/.test(name) ? name : null;
};

/** The guest settings as files: the last value of each key, by file name. */
export function settingFiles(
  settings: readonly GuestSetting[],
): Array<{ path: string; content: string; secret: boolean }> {
  const byName = new Map<string, { value: string; key: string }>();
  for (const { key, value } of settings) {
    const name = fileNameOf(key);
    if (name) byName.set(name, { value, key: bareKey(key) });
  }
  return [...byName].map(([name, { value, key }]) => ({
    path: `${GUEST_SETTINGS_DIR}/${name}`,
    content: value,
    secret: key === 'cloud.password',
  }));
}

/** `#cloud-config` user-data: the hostname, the user, and every guest setting as a file. */
export function userData(machine: CloudInitMachine): string {
  const cloud = cloudSettingsOf(machine.guestSettings);
  const config: Record<string, unknown> = {
    hostname: machine.hostname,
    preserve_hostname: false,
    manage_etc_hosts: true,
  };
  if (cloud.user) {
    const user: Record<string, unknown> = {
      name: cloud.user,
      shell: '/bin/bash',
      lock_passwd: cloud.password === null,
    };
    if (cloud.password !== null) user.plain_text_passwd = cloud.password;
    if (cloud.sshKeys.length > 0) user.ssh_authorized_keys = cloud.sshKeys;
    if (cloud.sudo) user.sudo = 'ALL=(ALL) NOPASSWD:ALL';
    config.users = ['default', user];
  } else {
    // The image's default user takes them.
    if (cloud.password !== null) {
      config.password = cloud.password;
      config.chpasswd = { expire: false };
    }
    if (cloud.sshKeys.length > 0) config.ssh_authorized_keys = cloud.sshKeys;
  }
  if (cloud.password !== null) config.ssh_pwauth = true;
  const files = settingFiles(machine.guestSettings);
  if (files.length > 0) {
    // Base64, so that a value is written byte for byte, whatever it holds.
    config.write_files = files.map((f) => ({
      path: f.path,
      content: Buffer.from(f.content, 'utf8').toString('base64'),
      encoding: 'b64',
      owner: 'root:root',
      permissions: f.secret ? '0600' : '0644',
    }));
  }
  return `#cloud-config\n${yamlText(config)}\n`;
}

export function metaData(machine: CloudInitMachine): string {
  return `${yamlText({ 'instance-id': machine.instanceId, 'local-hostname': machine.hostname })}\n`;
}

/** Network config version 2: each NIC matched by its MAC and named eth{index}. */
export function networkConfig(machine: CloudInitMachine): string {
  const cloud = cloudSettingsOf(machine.guestSettings);
  const ethernets: Record<string, unknown> = {};
  for (const nic of machine.nics) {
    const address = cloud.addresses.get(nic.index) ?? { kind: 'dhcp' };
    const entry: Record<string, unknown> = {
      match: { macaddress: nic.mac.toLowerCase() },
      'set-name': `eth${nic.index}`,
      dhcp4: address.kind === 'dhcp',
      dhcp6: false,
      // Boot never waits for a lab network's address.
      optional: true,
    };
    if (address.kind === 'static') {
      entry.addresses = [address.address];
      if (address.gateway) {
        entry.routes = [
          { to: isIP(address.gateway) === 6 ? '::/0' : '0.0.0.0/0', via: address.gateway },
        ];
      }
    }
    if (cloud.nameservers.length > 0 && address.kind !== 'none') {
      entry.nameservers = { addresses: cloud.nameservers };
    }
    ethernets[`eth${nic.index}`] = entry;
  }
  return `${yamlText({ version: 2, ethernets })}\n`;
}

/** The NoCloud seed's three files, by name. */
export function seedFiles(machine: CloudInitMachine): Record<SeedFileName, string> {
  return {
    'meta-data': metaData(machine),
    'user-data': userData(machine),
    'network-config': networkConfig(machine),
  };
}

export type SeedFileName = 'meta-data' | 'user-data' | 'network-config';
