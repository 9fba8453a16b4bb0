// Warm pools (docs/operations.md#warm-pools): the rules the server and the admin area share.

/**
 * The most sets one workspace's pool keeps, whatever its size or a scheduled launch asks: room
 * for a synchronized start of a few hundred teams. The hypervisor's caps bound it further (a pool
 * never takes the last launch's room), and a size beyond what they could ever hold is refused.
 */
export const MAX_POOL_SIZE = 500;
