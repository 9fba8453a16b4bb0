import type { PlayerRun, Snapshot } from './launch';

// bench:pool's check of a pooled start (tests/bench/pool.ts), on what the database holds before
// and after it and what each player was answered.

/**
 * What the database says of the pooled start: which launches were handed a set ready before it
 * (`pooled`) or one warmed during it (`late`), the others having deployed; and `problems`, every
 * way a set or machine went to two gamespaces or a gamespace lacks its own two machines.
 */
export function checkClaims(before: Snapshot, after: Snapshot, runs: PlayerRun[]) {
  const problems: string[] = [];
  const gamespaces = new Set(runs.map((r) => r.gamespaceId));
  // Sets claimed in this start: those claimed in an earlier one were so already.
  const earlier = new Set(before.sets.filter((s) => s.state === 'claimed').map((s) => s.id));
  const claimed = after.sets.filter((s) => s.state === 'claimed' && !earlier.has(s.id));
  const claimers = claimed.map((s) => s.claimedBy);
  if (new Set(claimers).size !== claimers.length) problems.push('a gamespace claimed two sets');
  const strangers = claimers.filter((g) => !gamespaces.has(g));
  if (strangers.length) problems.push(`sets claimed by unknown gamespaces: ${strangers.join(' ')}`);

  // The machines each ready set had before the start, by machine id.
  const readySets = new Set(before.sets.filter((s) => s.state === 'ready').map((s) => s.id));
  const setOfMachine = new Map(
    before.machines.filter((m) => readySets.has(m.tag)).map((m) => [m.id, m.tag]),
  );
  const machinesOf = new Map<string, Snapshot['machines']>();
  for (const m of after.machines) machinesOf.set(m.tag, [...(machinesOf.get(m.tag) ?? []), m]);

  const seen = new Set<string>();
  const pooled = new Set<string>();
  const late = new Set<string>();
  for (const run of runs) {
    const g = run.gamespaceId;
    const own = machinesOf.get(g) ?? [];
    if (own.length !== 2) problems.push(`${g} has ${own.length} machines`);
    for (const m of own) {
      if (!m.name.endsWith(`#${g}`)) problems.push(`${g} has machine ${m.name}`);
      const nets = (JSON.parse(m.nics) as string[]).filter((net) => net.includes('#'));
      if (!nets.every((net) => net.endsWith(`#${g}`))) {
        problems.push(`${m.name} is on ${nets.join(' ')}`);
      }
    }
    const ids = own.map((m) => m.id).sort();
    if (JSON.stringify(ids) !== JSON.stringify([...run.vmIds].sort())) {
      problems.push(`${g} was answered ${run.vmIds.join(' ')}, has ${ids.join(' ') || 'none'}`);
    }
    for (const id of run.vmIds) {
      if (seen.has(id)) problems.push(`machine ${id} was handed to two gamespaces`);
      seen.add(id);
    }
    const set = claimed.find((s) => s.claimedBy === g);
    const from = new Set(ids.map((id) => setOfMachine.get(id)));
    if (set && from.size === 1 && from.has(set.id)) pooled.add(g);
    else if (ids.some((id) => setOfMachine.has(id))) {
      problems.push(`${g} has machines of a ready set it did not claim`);
    } else if (set && readySets.has(set.id)) {
      problems.push(`${g} claimed the ready set ${set.id} but has machines of its own`);
    }
    // A set warmed during the start (a refill) and claimed: its machines were not ready before.
    else if (set) late.add(g);
  }
  for (const set of claimed) {
    if ((machinesOf.get(set.id) ?? []).length) problems.push(`claimed set ${set.id} kept machines`);
  }
  return { pooled, late, claims: claimed.length, problems };
}
