import { fileStamp } from './disks';

// Images without the guest agent (an author's own, imported): a machine booted from one never
// answers `ping`, so the driver learns it once a wait for the agent has run its whole course
// (WARM_BOOT_MS: a warm image's build, a boot's notice, a pooled set's untilUsable) and knows it
// from then on: such an image gets no warm image build and no boot notice, its machines are usable
// once they run, and a template of it with guest settings cannot be pooled (a claim could not give
// its running machine the settings). An image is known by the stamp of the machine's first disk's
// base, so a changed image (one with the agent installed since) is asked again; what was learned
// lasts until the server restarts.

export function createAgentless() {
  const stamps = new Set<string>();

  const stampOf = async (base: string | null | undefined): Promise<string | null> =>
    base ? fileStamp(base).catch(() => null) : null;

  return {
    /** A machine on this base (its first disk's) booted, and its agent never answered. */
    async learn(base: string | null | undefined): Promise<void> {
      const stamp = await stampOf(base);
      if (stamp) stamps.add(stamp);
    },
    /** Whether machines on this base are known to have no agent. */
    async has(base: string | null | undefined): Promise<boolean> {
      const stamp = await stampOf(base);
      return stamp !== null && stamps.has(stamp);
    },
  };
}

export type Agentless = ReturnType<typeof createAgentless>;
