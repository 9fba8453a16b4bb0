import type { Audience, Backplane } from '../hub/backplane';

// The hub's backplane seen by the kept game states (server/core/play/stateCache.ts): a message to
// a group drops what is kept for it, on whichever server process the change was made.

/** The backplane, telling `onGroup` of every group message it delivers in this process. */
export function observeGroups(backplane: Backplane, onGroup: (group: string) => void): Backplane {
  return {
    ...backplane,
    attach(deliver) {
      backplane.attach((audience: Audience, frame) => {
        if (!audience.all) onGroup(audience.group);
        deliver(audience, frame);
      });
    },
  };
}
