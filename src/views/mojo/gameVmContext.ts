import { createContext } from 'react';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import type { vmControllerMachine } from '../../machines/vmControllerMachine';

/**
 * What the play page's machine controllers are made of: the controller with the play page's
 * effects provided (src/app builds it, since only the app reaches the API) and the inspector.
 */
export interface GameVmServices {
  logic: typeof vmControllerMachine;
  inspect?: ActorOptions<AnyActorLogic>['inspect'];
}

export const GameVmContext = createContext<GameVmServices | null>(null);
