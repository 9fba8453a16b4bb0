import { parseChallengeText, type ChallengeSpec } from '../../../src/domain/challenge';
import type { HypervisorDriver, MachineSpec } from '../../hypervisor';
import type { TemplateWithParentDetail } from '../../store/repositories/templates';
import type { WorkspaceTable } from '../../store/schema';
import { sha256Hex } from '../ids';
import { toMachineSpec } from '../machineSpecs';
import { gamespaceTemplates, templatesOfVariant } from '../play/deploy';

// What a pooled set is made of: the machines a gamespace of the variant would get for one
// player, with the templates' own guest settings (the gamespace's, its transforms resolved, are
// delivered when it claims the set), and the fingerprint that says whether a set was made from
// the templates as they are now; and whether the driver can pool the machines at all.

/** The machine specs of a pooled set under its tag: a gamespace's for one player, untransformed. */
export function pooledSpecs(
  ws: WorkspaceTable,
  templates: readonly TemplateWithParentDetail[],
  variant: number,
  tag: string,
): MachineSpec[] {
  const challenge = parseChallengeText(ws.challenge).variants[variant] ?? null;
  return gamespaceTemplates({ id: tag, variant, playerCount: 1 }, ws, templates, {
    transforms: [],
    challenge,
  }).map(toMachineSpec);
}

/**
 * What a workspace's sets of a variant are made from, as a hash: the templates of the variant,
 * the workspace's settings that shape its machines, and the challenge ISO of the variant.
 */
export function fingerprintOf(
  ws: Pick<WorkspaceTable, 'hostAffinity' | 'useUplinkSwitch'>,
  templates: readonly TemplateWithParentDetail[],
  variant: number,
  challenge: ChallengeSpec['challenge'],
): string {
  const rows = templatesOfVariant(templates, variant).sort((a, b) => (a.id < b.id ? -1 : 1));
  return sha256Hex(
    JSON.stringify({
      hostAffinity: ws.hostAffinity,
      useUplinkSwitch: ws.useUplinkSwitch,
      // What a launch mounts of it (play/deploy.ts challengeIso), nothing else.
      iso: challenge?.iso ? { file: challenge.iso.file, targets: challenge.iso.targets } : null,
      templates: rows,
    }),
  );
}

/** The fingerprint of each variant of the workspace (one when it has no variants). */
export function fingerprintsOf(
  ws: WorkspaceTable,
  templates: readonly TemplateWithParentDetail[],
): string[] {
  const { variants } = parseChallengeText(ws.challenge);
  return Array.from({ length: Math.max(1, variants.length) }, (_, v) =>
    fingerprintOf(ws, templates, v, variants[v] ?? null),
  );
}

/**
 * Why the driver cannot keep the workspace's machines in a pool (a template whose running machines
 * could not take a claim's guest settings: qemu, an image without the guest agent), or null.
 */
export async function unpoolableReason(
  driver: Pick<HypervisorDriver, 'poolable'>,
  ws: WorkspaceTable,
  templates: readonly TemplateWithParentDetail[],
): Promise<string | null> {
  if (!driver.poolable) return null;
  for (let variant = 0; variant < fingerprintsOf(ws, templates).length; variant++) {
    for (const spec of pooledSpecs(ws, templates, variant, '')) {
      const poolable = await driver.poolable(spec);
      if (!poolable.available) return poolable.reason;
    }
  }
  return null;
}
