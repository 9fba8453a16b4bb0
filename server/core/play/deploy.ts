import type { ChallengeSpec } from '../../../src/domain/challenge';
import { substitute } from '../../../src/domain/transforms';
import { realClock, type Clock } from '../../clock';
import type { HypervisorDriver, Machine, MachineSpec } from '../../hypervisor';
import { toDeployable } from '../machineSpecs';
import { uniqueName } from '../naming';
import type { TemplateWithParentDetail } from '../../store/repositories/templates';
import type { GamespaceTable, TemplateTable, WorkspaceTable } from '../../store/schema';
import type { VmTemplate } from '../templates';

// Deploying a gamespace's machines (wire reference §4.5): which templates of the workspace the
// gamespace's variant uses, how many copies each makes, and the complete machine templates the
// driver deploys under the gamespace id as isolation tag.

/** Core.ReplicaLimit of the reference: the most copies one template makes. */
export const REPLICA_LIMIT = 5;
/** How often and how long the launch waits for every machine to exist (18 × 5 s). */
export const DEPLOY_POLL = { attempts: 18, intervalMs: 5_000 } as const;

export const VARIANT_SUFFIX = /_v\d+$/;

/** Templates of variant 0 (all variants) or of the gamespace's one, variant suffix removed. */
export function templatesOfVariant<T extends Pick<TemplateTable, 'name' | 'variant'>>(
  templates: readonly T[],
  variant: number,
): T[] {
  return templates
    .filter((t) => t.variant === 0 || t.variant - 1 === variant)
    .map((t) => (t.variant === 0 ? t : { ...t, name: t.name.replace(VARIANT_SUFFIX, '') }));
}

/**
 * The names a template deploys under: one, or `name_1..name_n` for replicas. A negative replica
 * count means one per player; both are capped at the replica limit.
 */
export function replicaNames(name: string, replicas: number, playerCount: number): string[] {
  const wanted = replicas < 0 ? playerCount : replicas;
  const count = Math.min(wanted, REPLICA_LIMIT);
  if (count <= 1) return [name];
  return Array.from({ length: count }, (_, i) => `${name}_${i + 1}`);
}

/** The challenge ISO, for a template that has none and is one of the ISO's targets. */
export function challengeIso(
  template: Pick<TemplateTable, 'name' | 'iso'>,
  iso: { file: string; targets: string } | null | undefined,
): string {
  if (template.iso || !iso?.file) return template.iso;
  const targets = iso.targets.toLowerCase().split(/\s+/).filter(Boolean);
  return targets.includes(template.name.toLowerCase()) ? iso.file : template.iso;
}

/**
 * The machine templates of a gamespace: `##key##` substituted, ISO mounted, replicas named, and
 * every name the gamespace's own. Two templates may resolve to one name (a variant's `web_v1`
 * and an all-variants `web`, or two templates renamed alike); the later one is numbered, so that
 * neither machine hides the other (the driver deploys only names it does not have yet).
 */
export function gamespaceTemplates(
  gamespace: Pick<GamespaceTable, 'id' | 'variant' | 'playerCount'>,
  workspace: Pick<WorkspaceTable, 'hostAffinity' | 'useUplinkSwitch'>,
  templates: readonly TemplateWithParentDetail[],
  spec: Pick<ChallengeSpec, 'transforms' | 'challenge'>,
): VmTemplate[] {
  const taken: string[] = [];
  const own = (name: string) => {
    const unique = uniqueName(name, taken);
    taken.push(unique);
    return unique;
  };
  return templatesOfVariant(templates, gamespace.variant).flatMap((t) => {
    const resolved = {
      ...t,
      guestinfo: substitute(t.guestinfo, spec.transforms),
      detail: t.detail === null ? null : substitute(t.detail, spec.transforms),
      iso: challengeIso(t, spec.challenge?.iso),
    };
    const parentDetail =
      t.parentDetail === null ? null : substitute(t.parentDetail, spec.transforms);
    return replicaNames(t.name, t.replicas, Math.max(1, gamespace.playerCount)).map((name) =>
      toDeployable({
        template: { ...resolved, name: own(name) },
        parentDetail,
        tag: gamespace.id,
        workspace,
      }),
    );
  });
}

/**
 * Deploys the machines and waits until all of them exist (true), polling the driver every
 * `poll.intervalMs` of `clock`'s time; false when they never all appear, in which case the
 * gamespace does not start.
 */
export async function deployAndWait(
  driver: Pick<HypervisorDriver, 'deployBatch' | 'machinesOf'>,
  context: { gamespaceId: string; hostAffinity: boolean; privileged: boolean },
  specs: MachineSpec[],
  poll: { attempts: number; intervalMs: number } = DEPLOY_POLL,
  clock: Clock = realClock,
): Promise<{ complete: boolean; deployed: Machine[] }> {
  const deployed = await driver.deployBatch(
    {
      isolationTag: context.gamespaceId,
      hostAffinity: context.hostAffinity,
      privileged: context.privileged,
      specs,
    },
    true,
  );
  // The driver answers the machines it found after deploying: all there, nothing to wait for.
  if (deployed.length >= specs.length) return { complete: true, deployed };
  for (let attempt = 0; attempt < poll.attempts; attempt++) {
    const found = await driver.machinesOf(context.gamespaceId);
    if (found.length >= specs.length) return { complete: true, deployed };
    await new Promise<void>((resolve) => clock.setTimeout(resolve, poll.intervalMs));
  }
  return { complete: false, deployed };
}
