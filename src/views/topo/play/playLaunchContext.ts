import { createContext } from 'react';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import type { gamespaceLaunchMachine } from '../../../machines/gamespaceLaunchMachine';

/** The Play tab's launcher with the app's effects (src/app builds it) and the inspector. */
export interface PlayLaunchServices {
  logic: typeof gamespaceLaunchMachine;
  inspect?: ActorOptions<AnyActorLogic>['inspect'];
}

export const PlayLaunchContext = createContext<PlayLaunchServices | null>(null);
