import type * as TE from 'fp-ts/TaskEither';
import * as t from 'io-ts';
import { nullable } from './codecs';
import type { ApiError, HttpClient } from './http';

/** A task running on a machine or its disks (wire reference §2.5 VmTask); progress runs 0..100. */
export const VmTask = t.intersection([
  t.type({ progress: t.number }),
  t.partial({ id: nullable(t.string), name: nullable(t.string), whenCreated: nullable(t.string) }),
]);
export type VmTask = t.TypeOf<typeof VmTask>;

/** Ours, not the reference's: one NIC of a machine and the network it is on ('' disconnected). */
export const VmNic = t.type({ index: t.number, network: t.string });
export type VmNic = t.TypeOf<typeof VmNic>;

/**
 * Ours, not the reference's: the changes of PUT vm/{id}/change that the machine's hypervisor
 * makes while it runs; a TopoMojo server does not send it, and then every change is offered.
 */
export const VmCapabilities = t.partial({
  isoChange: t.boolean,
  netChange: t.boolean,
  guestChange: t.boolean,
});
export type VmCapabilities = t.TypeOf<typeof VmCapabilities>;

/**
 * A machine (wire reference §2.5 Vm): a deployed one, or the pseudo-machine of a template that is
 * not deployed (id '', status created or initialized). Unknown statuses and power states are kept
 * as text, so that a newer server is not a failure; the controller offers nothing for them.
 */
export const Vm = t.intersection([
  t.type({ id: t.string }),
  t.partial({
    name: nullable(t.string),
    host: nullable(t.string),
    path: nullable(t.string),
    status: nullable(t.string),
    state: nullable(t.string),
    task: nullable(VmTask),
    hypervisorType: nullable(t.string),
    groupName: nullable(t.string),
    isTemplate: nullable(t.boolean),
    /**
     * Ours, not the reference's: the operations of PUT vm that the machine supports (`revert`
     * only where it has a snapshot to go back to). Kept as text, like the status, so that an
     * operation a newer server adds is not a failure.
     */
    operations: nullable(t.array(t.string)),
    /** Ours too: the machine's NICs in order; a TopoMojo server does not send it. */
    nics: nullable(t.array(VmNic)),
    capabilities: nullable(VmCapabilities),
    /** Ours too, in GET vms only: the players' names of a gamespace's machine. */
    playerNames: nullable(t.array(t.string)),
  }),
]);
export type Vm = t.TypeOf<typeof Vm>;

/** PUT vm's operations (wire reference §2.5 VmOperation). */
export type VmOperationType = 'start' | 'stop' | 'save' | 'revert' | 'delete';

export interface VmOperation {
  id: string;
  type: VmOperationType;
}

const templatePath = (templateId: string) => `vm-template/${encodeURIComponent(templateId)}`;

/** GET vm-template/{templateId}: the template's deployed machine, or its pseudo-machine. */
export const getTemplateMachine =
  (http: HttpClient) =>
  (templateId: string, signal: AbortSignal): TE.TaskEither<ApiError, Vm> =>
    http.request(Vm, { method: 'GET', path: templatePath(templateId), signal });

/** PUT vm-template/{templateId}: starts copying the template's disks; the least progress (100: done). */
export const initializeTemplate =
  (http: HttpClient) =>
  (templateId: string, signal: AbortSignal): TE.TaskEither<ApiError, number> =>
    http.request(t.number, { method: 'PUT', path: templatePath(templateId), body: {}, signal });

/** POST vm-template/{templateId}: deploys the template's builder machine. */
export const deployTemplate =
  (http: HttpClient) =>
  (templateId: string, signal: AbortSignal): TE.TaskEither<ApiError, Vm> =>
    http.request(Vm, { method: 'POST', path: templatePath(templateId), body: {}, signal });

/** GET vm/{id}: the machine, or null once it is gone. */
export const loadVm =
  (http: HttpClient) =>
  (id: string, signal: AbortSignal): TE.TaskEither<ApiError, Vm | null> =>
    http.request(nullable(Vm), { method: 'GET', path: `vm/${encodeURIComponent(id)}`, signal });

/** PUT vm {id, type}: the machine after the operation (a delete answers status initialized). */
export const changeVmState =
  (http: HttpClient) =>
  (operation: VmOperation, signal: AbortSignal): TE.TaskEither<ApiError, Vm> =>
    http.request(Vm, { method: 'PUT', path: 'vm', body: operation, signal });
