import type { ActorRef, Snapshot } from 'xstate';
import type { Vm } from '../api/vm';
import type { VmHubEvent } from '../streams/hub';
import type { VmActionsEvent } from './vmActionsMachine';
import type { VmRequestAnswer } from './vmRequestMachine';

// The types of vmControllerMachine.ts (which exports them), kept apart so that the machine's file
// is its setup and chart.

/** What the controller knows of its template; the editor tells it when the link state changes. */
export interface VmControllerTemplate {
  id: string;
  name: string;
  isLinked: boolean;
  workspaceId: string;
}

/** What the controller tells its template editor: the lock follows the deployment (spec §2). */
export type VmControllerReport = { type: 'template.deploymentChanged'; deployed: boolean };

export type VmControllerEvent =
  | { type: 'vm.refreshRequested' }
  /** The buttons' requests, their confirmation and their alerts: the actions' (forwarded). */
  | Exclude<VmActionsEvent, { type: 'vm.controlsChanged' }>
  | { type: 'vm.consoleRequested' }
  /** The template was saved, unlinked or re-linked (unlinking gives it disks to initialize). */
  | { type: 'vm.templateChanged'; template: VmControllerTemplate }
  /** A VmEvent of the workspace's hub channel; `modelId` is the template's id for vm.deployed. */
  | { type: 'vm.announced'; kind: VmHubEvent['type']; modelId: string }
  /** From the actions: a request's answer. */
  | { type: 'vm.answered'; answer: VmRequestAnswer }
  /** Internal: an answer about the machine arrived (null: it could not be loaded). */
  | { type: 'vm.received'; vm: Vm | null }
  /** Internal: what is shown is out of date; load the machine now. */
  | { type: 'vm.stale' };

export interface VmControllerInput {
  template: VmControllerTemplate;
  /** The play page hides Delete. */
  hideDelete?: boolean;
  /** The console's f flag: 1 on the play page (full bleed), 0 in the workspace. */
  fullbleed?: boolean;
  /** The console's s: the gamespace id on the play page; by default the machine's isolation tag. */
  sessionId?: string;
  /**
   * The machine as the caller already knows it (the play page: a running machine the gamespace's
   * answer listed), shown until the first load answers; the load happens all the same.
   */
  known?: Vm;
  reportTo?: ActorRef<Snapshot<unknown>, VmControllerReport>;
}

export interface VmControllerContext {
  template: VmControllerTemplate;
  hideDelete: boolean;
  fullbleed: boolean;
  sessionId: string | null;
  /**
   * The machine as last loaded: the deployed one, or the template's pseudo-machine (status
   * created or initialized). Null before the first answer and after a failed load (spec §7
   * substitutes an empty object: nothing is known, so nothing but Refresh is offered).
   */
  vm: Vm | null;
  reportTo: VmControllerInput['reportTo'] | null;
}
