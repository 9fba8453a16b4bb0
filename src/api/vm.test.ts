import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { recordingClient } from './testing/recordingClient';
import { INVALID_RESPONSE_MESSAGE } from './http';
import {
  changeVmState,
  deployTemplate,
  getTemplateMachine,
  initializeTemplate,
  loadVm,
  Vm,
} from './vm';

const client = recordingClient;

const signal = () => new AbortController().signal;

const VM = {
  id: 'vm-1',
  name: 'web-01#ws-1',
  host: 'sim',
  path: '',
  reference: '',
  diskPath: '',
  stats: '',
  status: 'deployed',
  groupName: '',
  tags: null,
  state: 'running',
  question: null,
  task: { id: 't1', name: 'starting', progress: 40, whenCreated: '2026-01-01T00:00:00+00:00' },
  hypervisorType: 'proxmox',
  isTemplate: false,
  operations: ['start', 'stop', 'save', 'delete', 'reset'],
};

describe('machine calls', () => {
  it('reach the vm-template and vm routes with the reference shapes', async () => {
    const { http, calls } = client(200, VM);
    await getTemplateMachine(http)('t 1', signal())();
    await deployTemplate(http)('t-1', signal())();
    await loadVm(http)('vm-1', signal())();
    await changeVmState(http)({ id: 'vm-1', type: 'stop' }, signal())();
    expect(calls).toEqual([
      { method: 'GET', url: '/api/vm-template/t%201', body: undefined },
      { method: 'POST', url: '/api/vm-template/t-1', body: {} },
      { method: 'GET', url: '/api/vm/vm-1', body: undefined },
      { method: 'PUT', url: '/api/vm', body: { id: 'vm-1', type: 'stop' } },
    ]);
  });

  it('decode a deployed machine with its task', async () => {
    const { http } = client(200, VM);
    expect(await getTemplateMachine(http)('t-1', signal())()).toEqual(E.right(VM));
  });

  it("read initialize's answer as the bare progress number", async () => {
    const { http, calls } = client(200, 0);
    expect(await initializeTemplate(http)('t-1', signal())()).toEqual(E.right(0));
    expect(calls).toEqual([{ method: 'PUT', url: '/api/vm-template/t-1', body: {} }]);
  });

  it('read a machine that is gone as null', async () => {
    const { http } = client(200, null);
    expect(await loadVm(http)('vm-1', signal())()).toEqual(E.right(null));
  });

  it('report the server message of a refusal', async () => {
    const { http } = client(400, { message: 'WorkspaceNotIsolated' });
    expect(await changeVmState(http)({ id: 'vm-1', type: 'save' }, signal())()).toEqual(
      E.left({ status: 400, message: 'WorkspaceNotIsolated' }),
    );
  });

  it('report a body that is not a machine as an invalid response', async () => {
    const { http } = client(200, { name: 'no id' });
    expect(await deployTemplate(http)('t-1', signal())()).toEqual(
      E.left({ status: 200, message: INVALID_RESPONSE_MESSAGE }),
    );
  });
});

describe('Vm', () => {
  it("decodes a machine with our own field of its NICs' networks", () => {
    const vm = {
      ...VM,
      nics: [
        { index: 1, network: 'wan#ws-1' },
        { index: 0, network: 'lan#ws-1' },
        { index: 3, network: '' },
      ],
    };
    expect(E.isRight(Vm.decode(vm))).toBe(true);
  });
});
