import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../store/db';
import { createRepositories } from '../store/repositories';
import { ValidationFailed } from './errors';
import type { EventPayload, Publisher } from './fields';
import { EMPTY_GUID } from './ids';
import {
  createTemplateService,
  defaultDetail,
  localizeDiskPaths,
  normalizeDetail,
  parseDetail,
  serializeDetail,
  type TemplateService,
} from './templates';
import { actorFrom, type Actor } from './actor';
import { createWorkspaceService, type WorkspaceService } from './workspaces';

describe('template detail (VmTemplate JSON)', () => {
  it('reads property names in any case and writes every property in PascalCase', () => {
    const vm = parseDetail('{"ram": 2, "CPU": "2x1", "eth": [{"net": "lan"}], "disks": []}');
    expect(vm.Ram).toBe(2);
    expect(vm.Cpu).toBe('2x1');
    expect(vm.Eth).toEqual([
      { Id: 0, Net: 'lan', Key: null, Type: null, Mac: null, Ip: null, Vlan: 0 },
    ]);
    const written = JSON.parse(serializeDetail(vm));
    expect(Object.keys(written)).toEqual([
      'Id',
      'Name',
      'TopoId',
      'Cpu',
      'Guest',
      'Source',
      'Iso',
      'Floppy',
      'Version',
      'IsolationTag',
      'HostAffinity',
      'UseUplinkSwitch',
      'Ram',
      'VideoRam',
      'Adapters',
      'Delay',
      'AutoStart',
      'Template',
      'ParentTemplate',
      'Eth',
      'Disks',
      'GuestSettings',
    ]);
    expect(written.AutoStart).toBe(true);
  });

  it('rejects text that is not a JSON object with a 400 on the detail', () => {
    for (const text of ['not json', '[1]', '"x"']) {
      expect(() => parseDetail(text)).toThrow(ValidationFailed);
    }
  });

  it('gives a new template the default detail of the reference', () => {
    const vm = defaultDetail('My Server #1');
    expect(vm).toMatchObject({ Ram: 4, Cpu: '1x2', Adapters: 1, VideoRam: 0 });
    expect(vm.Eth).toMatchObject([{ Net: 'lan', Type: 'e1000' }]);
    expect(vm.Disks).toMatchObject([
      {
        Path: `[ds] ${EMPTY_GUID}/my-server-1.vmdk`,
        Source: '',
        Controller: 'lsilogic',
        Size: 10,
      },
    ]);
    expect(JSON.parse(normalizeDetail('', 'x')).Disks[0].Path).toContain('/x.vmdk');
  });

  it('localizes disks into the workspace folder, keeping the old path as the source', () => {
    const vm = parseDetail(
      JSON.stringify({
        Disks: [{ Path: '[ds] stock/base.vmdk' }, { Path: '[ds] ws1/t1_1.vmdk' }],
        Template: 'pve-base',
      }),
    );
    const local = localizeDiskPaths(vm, 'ws1', 't1');
    expect(local.Disks.map((d) => [d.Path, d.Source])).toEqual([
      ['[ds] ws1/t1_0.vmdk', '[ds] stock/base.vmdk'],
      ['[ds] ws1/t1_1.vmdk', null],
    ]);
    expect(local).toMatchObject({ Template: 't1', ParentTemplate: 'pve-base' });
  });

  it('gives a template of empty disks a Proxmox template VM of its own, and others none', () => {
    const empty = parseDetail(JSON.stringify({ Disks: [{ Path: '', Size: 8 }] }));
    const local = localizeDiskPaths(empty, 'ws1', 't1');
    expect(local.Disks.map((d) => [d.Path, d.Source, d.Size])).toEqual([
      ['[ds] ws1/t1_0.vmdk', '', 8],
    ]);
    expect(local).toMatchObject({ Template: 't1', ParentTemplate: null });
    const named = parseDetail(JSON.stringify({ Disks: [{ Path: '[ds] x/a.vmdk', Size: 8 }] }));
    expect(localizeDiskPaths(named, 'ws1', 't1')).toMatchObject({
      Template: null,
      ParentTemplate: null,
    });
  });
});

interface Recorded extends EventPayload {
  group: string;
  event: string;
}

function recorder(): Publisher & { events: Recorded[] } {
  const events: Recorded[] = [];
  return { events, publish: (group, event, payload) => events.push({ group, event, ...payload }) };
}

const defaults = { workspaceLimit: 0, gamespaceLimit: 2 };
const admin: Actor = actorFrom(null, { id: 'admin', name: 'Admin' }, 'administrator', defaults);
const creator: Actor = actorFrom(null, { id: 'creator', name: 'Creator' }, 'creator', defaults);

describe('template service events', () => {
  let store: Store;
  let templates: TemplateService;
  let workspaces: WorkspaceService;
  const hub = recorder();

  beforeAll(async () => {
    store = await openStore({ url: ':memory:' });
    templates = createTemplateService(createRepositories(store), { publisher: hub });
    workspaces = createWorkspaceService(createRepositories(store));
  });
  afterAll(async () => store?.close());
  beforeEach(() => {
    hub.events.length = 0;
  });

  it('publishes TEMPLATE.ADDED, UPDATED and REMOVED to the workspace group with the Template', async () => {
    const stock = await templates.createDetail({ name: 'base', isPublished: true });
    const ws = await workspaces.create(creator, { name: 'Lab' });
    const linked = await templates.link(creator, { templateId: stock.id, workspaceId: ws.id });
    expect(linked.name).toBe('base');
    await templates.update(creator, { id: linked.id, name: 'web' });
    await templates.remove(creator, linked.id);
    expect(hub.events.map((e) => [e.group, e.event, e.action])).toEqual([
      [ws.id, 'TemplateEvent', 'TEMPLATE.ADDED'],
      [ws.id, 'TemplateEvent', 'TEMPLATE.UPDATED'],
      [ws.id, 'TemplateEvent', 'TEMPLATE.REMOVED'],
    ]);
    expect(hub.events[1]).toMatchObject({
      actor: { id: 'creator', name: 'Creator' },
      model: { id: linked.id, name: 'web', workspaceId: ws.id, workspaceName: 'Lab' },
    });
  });

  it('names a linked template after its source, numbered only when the workspace has the name', async () => {
    const stock = await templates.createDetail({ name: 'router', isPublished: true });
    const ws = await workspaces.create(creator, { name: 'Routers' });
    const link = () => templates.link(creator, { templateId: stock.id, workspaceId: ws.id });
    expect((await link()).name).toBe('router');
    expect((await link()).name).toBe('router-2');
    expect((await link()).name).toBe('router-3');
  });

  it('publishes changes to a stock template to the all-zero group', async () => {
    const stock = await templates.createDetail({ name: 'stock' });
    await templates.update(admin, { id: stock.id, name: 'stock-2' });
    expect(hub.events).toMatchObject([
      { group: EMPTY_GUID, action: 'TEMPLATE.UPDATED', model: { workspaceId: null } },
    ]);
  });

  it('calls the machine seam before removing a template', async () => {
    const removed: string[] = [];
    const withMachines = createTemplateService(createRepositories(store), {
      machines: { templateDeleted: async (t) => void removed.push(t.id) },
    });
    const stock = await withMachines.createDetail({ name: 'gone' });
    await withMachines.remove(admin, stock.id);
    expect(removed).toEqual([stock.id]);
  });
});
