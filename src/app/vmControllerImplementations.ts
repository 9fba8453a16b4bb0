import * as TE from 'fp-ts/TaskEither';
import { pipe } from 'fp-ts/function';
import { map, type Observable } from 'rxjs';
import { fromEventObservable } from 'xstate';
import { fromTaskEither } from '../api/actor';
import type { ApiError, HttpClient } from '../api/http';
import {
  changeVmState,
  deployTemplate,
  getTemplateMachine,
  initializeTemplate,
  loadVm,
  type Vm,
} from '../api/vm';
import { vmActionsMachine } from '../machines/vmActionsMachine';
import { vmControllerMachine, type VmControllerEvent } from '../machines/vmControllerMachine';
import { vmLoadMachine } from '../machines/vmLoadMachine';
import { vmRequestMachine } from '../machines/vmRequestMachine';
import { vmEvents$, type HubEventSource } from '../streams/hub';

/** What a machine controller's effects are made of. */
export interface VmControllerDependencies {
  http: HttpClient;
  /** Server events of the hub connection, whichever connection is open. */
  hubEvents: HubEventSource;
}

/** The requests of a template's builder machine; a game's machines have none of them. */
type TemplateRequests = Pick<
  NonNullable<Parameters<typeof vmRequestMachine.provide>[0]['actors']>,
  'initializeTemplate' | 'deployTemplate'
>;

/**
 * The hub's VmEvents as the machine controller reads them; each controller keeps those of its own
 * machine (or VM.DEPLOY of its template).
 */
export const vmAnnouncements$ = (source: HubEventSource): Observable<VmControllerEvent> =>
  vmEvents$(source).pipe(
    map((event): VmControllerEvent => ({
      type: 'vm.announced',
      kind: event.type,
      modelId: event.model.id,
    })),
  );

/**
 * A machine controller with its effects: `machineOf` loads the machine its template id stands
 * for, `templateRequests` are the template's own requests where there are any. The machine by its
 * id, PUT vm, the hub's VmEvents and the console's tab are the same for every controller.
 */
export function vmControllerLogic(
  { http, hubEvents }: VmControllerDependencies,
  machineOf: (templateId: string, signal: AbortSignal) => TE.TaskEither<ApiError, Vm>,
  templateRequests: TemplateRequests = {},
) {
  return vmControllerMachine.provide({
    actors: {
      vmLoad: vmLoadMachine.provide({
        actors: {
          loadTemplateMachine: fromTaskEither(({ templateId }: { templateId: string }, signal) =>
            machineOf(templateId, signal),
          ),
          loadVm: fromTaskEither(({ id }: { id: string }, signal) => loadVm(http)(id, signal)),
        },
      }),
      vmActions: vmActionsMachine.provide({
        actors: {
          vmRequest: vmRequestMachine.provide({
            actors: { ...templateRequests, changeVmState: fromTaskEither(changeVmState(http)) },
          }),
        },
      }),
      vmEvents: fromEventObservable(() => vmAnnouncements$(hubEvents)),
    },
    actions: { openConsole: (_, { url }) => window.open(url, '_blank') },
  });
}

/** The Templates section's machine controllers: a template's builder machine. */
export function templateVmLogic(deps: VmControllerDependencies) {
  const { http } = deps;
  return vmControllerLogic(deps, getTemplateMachine(http), {
    initializeTemplate: fromTaskEither(({ templateId }: { templateId: string }, signal) =>
      initializeTemplate(http)(templateId, signal),
    ),
    deployTemplate: fromTaskEither(({ templateId }: { templateId: string }, signal) =>
      deployTemplate(http)(templateId, signal),
    ),
  });
}

/**
 * The play page's machine controllers: the machine is loaded by its own id (the controller's
 * template id stands for it there), and each follows the VmEvents of the gamespace.
 */
export function gameVmLogic(deps: VmControllerDependencies) {
  const { http } = deps;
  // A machine gone is nothing to show: the controller offers Refresh only.
  return vmControllerLogic(deps, (vmId, signal) =>
    pipe(
      loadVm(http)(vmId, signal),
      TE.chain((vm) =>
        vm ? TE.right(vm) : TE.left<ApiError, Vm>({ status: 404, message: 'ResourceNotFound' }),
      ),
    ),
  );
}
