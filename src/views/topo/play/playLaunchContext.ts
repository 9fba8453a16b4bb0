import { createContext } from 'react';
import type { GamespaceLaunchActorRef } from '../../../machines/gamespaceLaunchMachine';

/** The Play tab's launcher, which src/app runs for as long as the workspace is open. */
export const PlayLaunchContext = createContext<GamespaceLaunchActorRef | null>(null);
