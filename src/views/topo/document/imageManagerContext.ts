import { createContext } from 'react';
import type { ActorOptions, AnyActorLogic } from 'xstate';
import type { imageManagerMachine } from '../../../machines/imageManagerMachine';

/**
 * What an image manager is made of: the machine with its effects provided (src/app builds it,
 * since only the app reaches the API) and the event log's inspector. The Document tab composes
 * `<ImageManager workspaceId onInsert />` wherever it likes; the app provides this above it.
 */
export interface ImageManagerServices {
  logic: typeof imageManagerMachine;
  inspect?: ActorOptions<AnyActorLogic>['inspect'];
}

export const ImageManagerContext = createContext<ImageManagerServices | null>(null);
