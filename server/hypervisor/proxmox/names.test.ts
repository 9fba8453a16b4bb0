import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { vmName } from '../types';
import {
  aliasOf,
  describeMachine,
  isoPathOf,
  isoVolumeOf,
  machineMetaOf,
  netOfAlias,
  pveNameOf,
  pveTagOf,
  type MachineMeta,
} from './names';

// How the Proxmox driver names its things on a cluster. Each name is read back by the driver to
// tell ours from everyone else's, so the tests are round trips (written, then read back the same)
// and the formats PVE itself checks: a VM name is a DNS name, a tag matches PVE's tag pattern.

/** PVE's `dns-name` format for one label, as our names have no dots. */
const DNS_NAME = /^[a-z0-9]([a-z0-9-]*[a-z0-9])?$/;
/** PVE's tag pattern (pve-common, shown in the API viewer's `pve-tag-list`), case-insensitive. */
const PVE_TAG = /^[a-z0-9_][a-z0-9_+.-]*$/i;

/** Isolation tags are GUIDs; the server writes them in either case. */
const guid = fc
  .tuple(fc.uuid(), fc.boolean())
  .map(([id, upper]) => (upper ? id.toUpperCase() : id));

/** Any text, including characters outside the BMP. */
const text = fc.string({ unit: 'binary' });

describe('machine descriptions', () => {
  const meta: MachineMeta = { name: 'web#6f1d', source: 9000, nets: ['lan#6f1d', '', 'dmz'] };

  it('reads back the meta it wrote', () => {
    expect(machineMetaOf(describeMachine(meta))).toEqual(meta);
  });

  it.each([
    ['spaces', 'my web server#6f1d'],
    ['several #', 'a#b#c'],
    ['quotes and backslashes', `say "hi" it's \\ here#6f1d`],
    ['unicode', 'Überserver 🖥️ 東京#6f1d'],
    ['a newline', 'two\nlines#6f1d'],
  ])('keeps a name with %s', (_, name) => {
    expect(machineMetaOf(describeMachine({ ...meta, name }))).toEqual({ ...meta, name });
  });

  it('reads back any name, source and nets', () => {
    const metas = fc.record({
      name: text,
      source: fc.integer({ min: 100, max: 999_999_999 }),
      nets: fc.array(text, { maxLength: 6 }),
    });
    fc.assert(
      fc.property(metas, (m) => {
        expect(machineMetaOf(describeMachine(m))).toEqual(m);
      }),
    );
  });

  it('finds the meta after text an admin added before it', () => {
    const description = `Kept for the CTF.\n\n${describeMachine(meta)}`;
    expect(machineMetaOf(description)).toEqual(meta);
  });

  it.each([
    ['no description', undefined],
    ['an empty one', ''],
    ['plain text', 'Ubuntu 24.04 web server, do not touch'],
    ['a marker with no JSON', 'topoplay-machine:'],
    ['broken JSON', 'topoplay-machine:{"name":"x#t",'],
    ['JSON that is not an object', 'topoplay-machine:"web#t"'],
    ['a null', 'topoplay-machine:null'],
    ['a missing name', 'topoplay-machine:{"source":1,"nets":[]}'],
    ['a source that is a string', 'topoplay-machine:{"name":"x#t","source":"1","nets":[]}'],
    ['nets that are not a list', 'topoplay-machine:{"name":"x#t","source":1,"nets":"lan"}'],
  ])('is null for %s', (_, description) => {
    expect(machineMetaOf(description)).toBeNull();
  });

  it('reads a net that is not a string as not connected', () => {
    const description = 'topoplay-machine:{"name":"x#t","source":1,"nets":["lan#t",7,null]}';
    expect(machineMetaOf(description)?.nets).toEqual(['lan#t', '', '']);
  });

  // The name is on the description's first line too: the meta is read from the last marker line.
  it('keeps a name that holds the marker text', () => {
    const name = 'topoplay-machine: lab#6f1d';
    expect(machineMetaOf(describeMachine({ ...meta, name }))).toEqual({ ...meta, name });
  });
});

describe('PVE names of machines', () => {
  it('joins a readable name and the tag with "--"', () => {
    expect(pveNameOf('Web Server#6F1D-AB')).toBe('web-server--6f1d-ab');
  });

  it('names a machine whose name has no DNS characters "vm"', () => {
    expect(pveNameOf('東京#abc')).toBe('vm--abc');
  });

  it('gives a DNS name that holds the tag for any name and GUID tag', () => {
    fc.assert(
      fc.property(text, guid, (name, tag) => {
        const pveName = pveNameOf(vmName(name, tag));
        expect(pveName).toMatch(DNS_NAME);
        expect(pveName).toContain(tag.toLowerCase());
        expect(pveName.length).toBeLessThanOrEqual(40 + 2 + tag.length);
      }),
    );
  });

  // Cut to 40 characters, a name may end with a dash, which PVE refuses: it is trimmed again.
  it('gives a DNS name for a long name without a tag', () => {
    expect(pveNameOf(`${'a'.repeat(39)} b`)).toMatch(DNS_NAME);
  });
});

describe('PVE tags', () => {
  it('keeps a GUID, in lower case', () => {
    expect(pveTagOf('6F1D2C3B-0000-4A5B-8C9D-0123456789AB')).toBe(
      '6f1d2c3b-0000-4a5b-8c9d-0123456789ab',
    );
  });

  it('turns characters PVE refuses into "_" and never starts with one it refuses', () => {
    expect(pveTagOf('a b#c')).toBe('a_b_c');
    expect(pveTagOf('-x')).toBe('_-x');
    expect(pveTagOf('')).toBe('_');
  });

  it("matches PVE's tag format for any text", () => {
    fc.assert(
      fc.property(text, (tag) => {
        expect(pveTagOf(tag)).toMatch(PVE_TAG);
      }),
    );
  });
});

describe('vnet aliases', () => {
  it('writes an isolated net as {net}--{tag}', () => {
    expect(aliasOf('lan#6f1d')).toBe('lan--6f1d');
  });

  it.each(['lan', 'my-lan', 'my_lan', 'a--b', 'lan-', '-lan', 'dmz_2-x'])(
    'reads back the net %s',
    (net) => {
      const tag = '6f1d2c3b-0000-4a5b-8c9d-0123456789ab';
      expect(netOfAlias(aliasOf(`${net}#${tag}`))).toBe(`${net}#${tag}`);
    },
  );

  it('reads back any net name of letters, digits, "-" and "_" with any GUID tag', () => {
    const net = fc.stringMatching(/^[A-Za-z0-9_-]{1,20}$/);
    fc.assert(
      fc.property(net, guid, (n, tag) => {
        expect(netOfAlias(aliasOf(`${n}#${tag}`))).toBe(`${n}#${tag}`);
      }),
    );
  });

  it.each([
    ['no alias', undefined],
    ['an empty alias', ''],
    ['an alias without "--"', 'admin dmz'],
    ['an alias with a single "-"', 'lan-6f1d'],
    ['an alias starting with "--"', '--6f1d'],
    ['an alias ending with "--"', 'lan--'],
  ])('is null for %s', (_, alias) => {
    expect(netOfAlias(alias)).toBeNull();
  });
});

describe('ISO volumes', () => {
  const tag = '6f1d2c3b-0000-4a5b-8c9d-0123456789ab';

  it('flattens {tag}/file into {tag}__file on the storage', () => {
    expect(isoVolumeOf('isos', `${tag}/boot.iso`)).toBe(`isos:iso/${tag}__boot.iso`);
  });

  it.each(['boot.iso', 'with space.iso', 'a__b.iso', 'sub/dir.iso'])(
    'reads back the path of %s',
    (file) => {
      expect(isoPathOf(isoVolumeOf('isos', `${tag}/${file}`))).toBe(`${tag}/${file}`);
    },
  );

  it('reads back any file under any GUID tag', () => {
    const file = fc.string({ minLength: 1 });
    fc.assert(
      fc.property(guid, file, (t, f) => {
        expect(isoPathOf(isoVolumeOf('local', `${t}/${f}`))).toBe(`${t}/${f}`);
      }),
    );
  });

  it.each([
    ['an ISO without a tag', 'local:iso/ubuntu.iso'],
    ['an ISO starting with "__"', 'local:iso/__ubuntu.iso'],
    ['a container template', `local:vztmpl/${tag}__debian.tar.zst`],
    ['a disk', `local-lvm:vm-100-disk-0`],
    ['no storage', `iso/${tag}__boot.iso`],
  ])('is null for %s', (_, volid) => {
    expect(isoPathOf(volid)).toBeNull();
  });
});
