import type { Vm, VmOperationType } from '../api/vm';
import { toQueryString } from '../domain/query';
import type { VmRequest, VmRequestAnswer } from './vmRequestMachine';

// What a machine controller offers and where its console is: the rules that its machine decides
// by and that its selectors show (spec §2 Machine controller).

/** 'web-01#ws-1' -> { name: 'web-01', tag: 'ws-1' }. */
export function splitVmName(fullName: string): { name: string; tag: string } {
  const at = fullName.indexOf('#');
  return at < 0
    ? { name: fullName, tag: '' }
    : { name: fullName.slice(0, at), tag: fullName.slice(at + 1) };
}

/**
 * The console page of a machine (spec §2): /console/{id}/{name}?f=&s=&v=, where name and v are the
 * machine name without its '#tag', and s is the session (the tag unless the page says otherwise).
 */
export function consoleUrl(
  vm: Pick<Vm, 'id' | 'name'>,
  options: { fullbleed: boolean; sessionId: string | null },
): string {
  const { name, tag } = splitVmName(vm.name ?? '');
  const query = toQueryString({ s: options.sessionId ?? tag, v: name });
  // f is always written: 0 is a value here, not an absent one.
  const rest = query === '' ? '' : `&${query.slice(1)}`;
  return `/console/${encodeURIComponent(vm.id)}/${encodeURIComponent(name)}?f=${options.fullbleed ? 1 : 0}${rest}`;
}

export const hasRunningTask = (vm: Vm | null): boolean =>
  vm?.task != null && typeof vm.task.progress === 'number' && vm.task.progress < 100;

export const isDeployedVm = (vm: Vm | null): boolean => vm?.status === 'deployed';

/** A deployed machine with an id: one that can be loaded, powered and opened by its id. */
export const hasDeployedVm = (vm: Vm | null): boolean => isDeployedVm(vm) && (vm?.id ?? '') !== '';

/** Whether a hub event's id names the machine shown (a pseudo-machine has no id to match). */
export const isShownVm = (vm: Vm | null, id: string): boolean =>
  (vm?.id ?? '') !== '' && id === vm?.id;

/**
 * Whether the machine's hypervisor supports an operation, as the server says in `operations`
 * (not `hypervisorType`, which keeps to the reference's two names for its clients' sake). A
 * machine that does not say supports none of the optional ones.
 */
export const supportsOperation = (vm: Vm | null, operation: VmOperationType): boolean =>
  vm?.operations?.includes(operation) ?? false;

/** What decides the requests a controller offers. */
export interface VmControls {
  vm: Vm | null;
  template: { id: string; isLinked: boolean };
  hideDelete: boolean;
}

/** Whether the machine as last loaded offers a request (spec §2 Machine controller). */
export function offers({ vm, template, hideDelete }: VmControls, request: VmRequest): boolean {
  const deployed = hasDeployedVm(vm);
  switch (request) {
    case 'initialize':
      return vm?.status === 'created';
    case 'deploy':
      return vm?.status === 'initialized';
    case 'start':
      return deployed && vm?.state !== 'running';
    case 'stop':
      return deployed && vm?.state === 'running';
    // Saving writes the template's own disks: a linked template has none.
    case 'save':
      return deployed && template.id !== '' && !template.isLinked;
    // Only some hypervisors keep a snapshot to go back to (spec: vSphere's, not proxmox's).
    case 'revert':
      return deployed && supportsOperation(vm, 'revert');
    case 'delete':
      return deployed && !hideDelete;
  }
}

/** What the controller learns from a request's answer: the machine as it now is, or to load it. */
export type VmAnswerEvent = { type: 'vm.received'; vm: Vm | null } | { type: 'vm.stale' };

/** What a request's answer means for the machine shown (`shown`: as last loaded). */
export function answerEvents(answer: VmRequestAnswer, shown: Vm | null): VmAnswerEvent[] {
  switch (answer.request) {
    case 'initialize': {
      // Below 100 the copy is polled; at 100 there was nothing to copy: load the status.
      const { progress } = answer;
      return typeof progress === 'number' && progress < 100 && shown
        ? [{ type: 'vm.received', vm: { ...shown, task: { name: 'initializing', progress } } }]
        : [{ type: 'vm.stale' }];
    }
    // A deleted machine is its template's initialized pseudo-machine again; the refresh that
    // follows brings its final state.
    case 'delete':
      return [
        {
          type: 'vm.received',
          vm: { ...(answer.vm ?? shown ?? { id: '' }), status: 'initialized', task: null },
        },
        { type: 'vm.stale' },
      ];
    default:
      return [{ type: 'vm.received', vm: answer.vm }];
  }
}
