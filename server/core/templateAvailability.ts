import type { HypervisorDriver } from '../hypervisor';
import type { TemplateTable } from '../store/schema';
import { EMPTY_GUID } from './ids';
import { toDeployable, toMachineSpec } from './machineSpecs';

// Whether the hypervisor can run a template (the driver's availability), for the template lists
// where templates are chosen: a template whose base image is missing is marked there with the
// driver's reason, so that no one finds out only when a launch is refused.

/** Why each template of a list cannot run, by id; those that can are left out. */
export type TemplateAvailabilities = (
  rows: readonly TemplateTable[],
) => Promise<Map<string, string>>;

export const ALL_AVAILABLE: TemplateAvailabilities = async () => new Map();

export interface TemplateAvailabilityOptions {
  driver: Pick<HypervisorDriver, 'availability'>;
  /** A template by id: the parent a linked template deploys from. */
  find(id: string): Promise<Pick<TemplateTable, 'detail'> | undefined>;
  log?: { warn(o: object, msg?: string): void };
}

export function createTemplateAvailability(
  options: TemplateAvailabilityOptions,
): TemplateAvailabilities {
  const { driver, find, log } = options;
  return async (rows) => {
    // One read per parent, however many of the list are linked to it.
    const parents = new Map<string, Promise<string | null>>();
    const parentDetail = (id: string) => {
      let detail = parents.get(id);
      if (!detail) {
        detail = find(id).then((p) => p?.detail ?? null);
        parents.set(id, detail);
      }
      return detail;
    };
    const reasons = await Promise.all(
      rows.map(async (row): Promise<[string, string] | null> => {
        try {
          const inherits = !!row.isLinked || !row.detail?.trim();
          const spec = toMachineSpec(
            toDeployable({
              template: row,
              parentDetail: inherits && row.parentId ? await parentDetail(row.parentId) : null,
              tag: row.workspaceId ?? EMPTY_GUID,
              workspace: null,
            }),
          );
          const availability = await driver.availability(spec);
          return availability.available ? null : [row.id, availability.reason];
        } catch (error) {
          // The hypervisor out of reach, a detail that does not parse: the list is shown
          // unmarked, and a launch says what is wrong.
          log?.warn({ err: error, template: row.id }, 'template availability unknown');
          return null;
        }
      }),
    );
    return new Map(reasons.filter((r): r is [string, string] => r !== null));
  };
}
