import { realClock, type Clock } from '../clock';
import type { Repositories } from '../store/repositories';
import type { TemplateTable } from '../store/schema';
import { tagOf, untagged, type HypervisorDriver, type Machine } from '../hypervisor';
import { toDeployable, toMachineSpec } from './machineSpecs';
import type { TemplateMachines, VmTemplate } from './templates';
import {
  hubActionOf,
  isoPathOf,
  parseChange,
  vmCapabilitiesOf,
  vmDto,
  type Vm,
  type VmAnswer,
  type VmChange,
  type ConsoleAccess,
  type ConsoleRole,
  type VmConsole,
  type VmOperation,
  type VmOptions,
} from './vmViews';
import type { WorkspaceMachines } from './workspaces';
import { audienceReaches } from './dto';
import { isOver } from './gamespaces';
import { DomainError, Forbidden, forbidden, notFound } from './errors';
import { actorRef, unknownArgument, type EventPayload } from './fields';
import { asId, EMPTY_GUID } from './ids';
import type { Actor } from './actor';

// Lab machines (wire reference §1.4, §4.8, §4.10): who may see and drive a machine, which tag a
// request's id names, the template a builder machine deploys from, and the VmEvents the hub
// carries to the machine's tag group. The driver does the work; this decides whether it may.

/** Events about a machine go to its isolation tag's group. */
export interface VmPublisher {
  publish(group: string, event: 'VmEvent', payload: EventPayload): void;
}

/** The actor of events the server makes on its own (a task ended, a workspace was deleted). */
export const SYSTEM_ACTOR = { id: EMPTY_GUID, name: 'Topoplay' } as const;

/** A net a non-builder may attach: one of the machine's own isolated nets (`{net}#{tag}`). */
export function isIsolatedNet(value: string, tag: string): boolean {
  const net = value.split(':')[0] ?? '';
  return net.includes('#') && tagOf(net) === tag;
}

/** `workspace: {name}#{tag}`, `gamespace: {name}#{tag}` or `__orphaned#{tag}` (GET /api/vms). */
export function groupNameOf(
  tag: string,
  workspaces: Map<string, string>,
  gamespaces: Map<string, string>,
): string {
  const ws = workspaces.get(tag);
  if (ws !== undefined) return `workspace: ${ws}#${tag}`;
  const gs = gamespaces.get(tag);
  if (gs !== undefined) return `gamespace: ${gs}#${tag}`;
  return `__orphaned#${tag}`;
}

/** A path inside the ISO store: relative, with no `.`, `..` or empty segment. */
export function isStorePath(path: string): boolean {
  if (path.includes('\\') || path.includes('\0')) return false;
  return path.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** What the VM rules ask of the workspaces. */
export interface WorkspaceAccess {
  exists(id: string): Promise<boolean>;
  canEdit(actor: Actor, id: string): Promise<boolean>;
}

export interface VmServiceOptions {
  driver: HypervisorDriver;
  publisher: VmPublisher;
  /** Binds each console ticket to the subject it is handed to (server/console/tickets.ts). */
  consoleTickets?: {
    bind(
      ticket: string,
      subject: { id: string; name: string; gamespaceId?: string; agent?: boolean },
    ): Promise<void>;
  };
  /** The server's time: whether a gamespace is over, or its time still runs. */
  clock?: Clock;
  /** Whether consoles of machines of this isolation tag are recorded (server/console/recordings). */
  recorded?(tag: string): Promise<boolean>;
}

export function createVmService(
  repositories: Pick<
    Repositories,
    'gamespaces' | 'templates' | 'workspaces' | 'membership' | 'players'
  >,
  options: VmServiceOptions,
) {
  const { driver, publisher } = options;
  const clock = options.clock ?? realClock;
  const now = () => clock.now();
  const { gamespaces, templates, workspaces, membership, players } = repositories;
  const dto = (machine: Machine): Vm => vmDto(machine, driver.capabilities);

  function publish(actor: { id: string; name: string }, action: string, vm: Vm, tag?: string) {
    publisher.publish(tag ?? tagOf(vm.name), 'VmEvent', {
      action,
      actor: actorRef(actor),
      model: vm,
    });
  }

  /**
   * The isolation tag an id names: the text after '#' of a name, the tag of the machine with
   * that id, or else the id itself (a bare tag).
   */
  async function tagFor(id: string): Promise<string> {
    if (id.includes('#')) return tagOf(id);
    const vm = await driver.load(id);
    return vm ? tagOf(vm.name) : id;
  }

  /** gs.CanInteract or a worker of the workspace (UserStore.CanInteract in the reference). */
  async function canInteract(actor: Actor, tag: string): Promise<boolean> {
    return (await membership.playsOrManages(actor.id, tag)) || membership.worksOn(actor.id, tag);
  }

  /** The audience of the gamespace's workspace, or of the workspace, the tag names. */
  async function audienceOf(tag: string): Promise<string | null> {
    const game = await gamespaces.find(tag);
    const workspaceId = game ? game.workspaceId : tag;
    const ws = workspaceId ? await workspaces.find(workspaceId) : undefined;
    return ws?.audience ?? null;
  }

  /** CanManageVm: admin, the gamespace's own agent, an observer of its audience, or canInteract. */
  async function canManage(actor: Actor, tag: string): Promise<boolean> {
    if (actor.isAdmin) return true;
    if (actor.id === tag) return true;
    if (actor.isObserver && audienceReaches(await audienceOf(tag), actor.scope)) return true;
    return canInteract(actor, tag);
  }

  /**
   * How the actor reaches a machine's console (its tag), null for not at all: as a `player` (the
   * gamespace's players and manager, its agent, the workspace's workers), an `admin`, or an
   * `observer` of its audience. Only players and admins may drive it; an observer only watches.
   */
  async function consoleRole(actor: Actor, tag: string): Promise<ConsoleRole | null> {
    if (actor.id === tag || (await canInteract(actor, tag))) return 'player';
    if (actor.isAdmin) return 'admin';
    if (actor.isObserver && audienceReaches(await audienceOf(tag), actor.scope)) return 'observer';
    return null;
  }

  /**
   * How the actor may use the machine's console now (the console socket asks again), null for
   * not at all: `role` as consoleRole says, and whether they may drive it (`mayControl`).
   */
  async function consoleAccess(actor: Actor, id: string): Promise<ConsoleAccess | null> {
    const tag = await tagFor(id);
    if (!actor.isAdmin && (await isOverGame(tag))) return null;
    const role = await consoleRole(actor, tag);
    return role ? { role, mayControl: role !== 'observer' } : null;
  }

  /** CanDeleteVm: only those who take part in the workspace or gamespace (and admins). */
  async function canDelete(actor: Actor, tag: string): Promise<boolean> {
    return actor.isAdmin || canInteract(actor, tag);
  }

  /**
   * Whether the tag is a gamespace that is over (see isOver). Read from the database on every
   * call, never from a kept game state: a completion through any server counts at once here.
   */
  async function isOverGame(tag: string): Promise<boolean> {
    const game = await gamespaces.find(tag);
    return !!game && isOver(game, now());
  }

  /**
   * The machine's tag, once the actor may drive it. A gamespace that is over leaves its machines
   * to admins alone (who clean up after a removal that failed): its players, agent and observers
   * lose its consoles and operations the moment it ends, not when its machines are gone.
   */
  async function authorize(actor: Actor, id: string, mode: 'manage' | 'delete' = 'manage') {
    const tag = await tagFor(id);
    if (!actor.isAdmin && (await isOverGame(tag))) throw forbidden();
    const allowed = mode === 'delete' ? await canDelete(actor, tag) : await canManage(actor, tag);
    if (!allowed) throw forbidden();
    return tag;
  }

  /**
   * The ISOs a machine of this tag may mount: the files of its workspace (a gamespace's machines
   * use their workspace's) and the public ones, as the driver lists them, plus the ISOs the
   * workspace's templates name.
   */
  async function usableIsos(tag: string): Promise<string[]> {
    const game = await gamespaces.find(tag);
    const workspaceId = game ? (game.workspaceId ?? EMPTY_GUID) : tag;
    const listed = await driver.isoOptions(workspaceId);
    const named = await templates.isosOfWorkspace(workspaceId);
    const paths = named.map(isoPathOf).filter((p) => p !== '');
    return [...new Set([...listed, ...paths])].sort();
  }

  /** A workspace with gamespaces that have not ended and not expired is not isolated. */
  function activeGamespaces(workspaceId: string): Promise<number> {
    return gamespaces.countUnexpiredIn(workspaceId, now());
  }

  /** A template's VmTemplate under a tag, with its parent's detail and its workspace's flags. */
  async function deployableOf(template: TemplateTable, tag: string): Promise<VmTemplate> {
    const parent = template.parentId ? await templates.find(template.parentId) : undefined;
    const workspace = template.workspaceId
      ? await workspaces.find(template.workspaceId)
      : undefined;
    return toDeployable({
      template,
      parentDetail: parent?.detail ?? null,
      tag,
      workspace: workspace ?? null,
    });
  }

  /** The template of a vm-template route, and the builder machine's tag, once authorized. */
  async function builderTemplate(actor: Actor, templateId: string) {
    const key = asId(templateId);
    const template = key ? await templates.find(key) : undefined;
    if (!template) throw unknownArgument('id');
    const tag = template.workspaceId ?? EMPTY_GUID;
    if (!(await canManage(actor, tag))) throw forbidden();
    return { template, tag, deployable: await deployableOf(template, tag) };
  }

  async function deleteAll(tag: string): Promise<void> {
    for (const machine of await driver.deleteAll(tag)) {
      publish(SYSTEM_ACTOR, 'VM.DELETE', dto(machine), tag);
    }
  }

  /** The seams through which deleting workspaces and templates removes their machines. */
  const workspaceMachines: WorkspaceMachines = {
    async workspaceDeleted(workspaceId, templates) {
      await deleteAll(workspaceId);
      for (const template of templates) {
        if (template.isLinked) continue;
        await driver.deleteDisks(toMachineSpec(await deployableOf(template, workspaceId)));
      }
    },
    gamespaceEnded: deleteAll,
  };

  const templateMachines: TemplateMachines = {
    async templateDeleted(template) {
      const tag = template.workspaceId ?? EMPTY_GUID;
      const vm = await driver.load(`${template.name}#${tag}`);
      if (vm) publish(SYSTEM_ACTOR, 'VM.DELETE', dto(await driver.delete(vm.id)), tag);
      if (!template.isLinked) {
        await driver.deleteDisks(toMachineSpec(await deployableOf(template, tag)));
      }
    },
  };

  return {
    canManage,
    canDelete,
    tagFor,
    workspaceMachines,
    templateMachines,

    /** Relays the driver's own changes (tasks ending) to the machines' groups. */
    relayDriverEvents(): () => void {
      return driver.subscribe((event) =>
        publish(SYSTEM_ACTOR, hubActionOf(event), dto(event.machine)),
      );
    },

    /**
     * GET /api/vms: observers and admins; a non-admin observer sees only the machines it may
     * manage. Each machine's groupName names its workspace or gamespace; a gamespace's machine
     * also names its players (playerNames, ours).
     */
    async list(actor: Actor, filter: string): Promise<Vm[]> {
      if (!actor.isAdmin && !actor.isObserver) throw forbidden();
      let vms = (await driver.find(filter)).map(dto);
      if (!actor.isAdmin) {
        const tags = [...new Set(vms.map((vm) => tagOf(vm.name)))];
        const allowed = new Set<string>();
        for (const tag of tags) if (await canManage(actor, tag)) allowed.add(tag);
        vms = vms.filter((vm) => allowed.has(tagOf(vm.name)));
      }
      const tags = [...new Set(vms.map((vm) => tagOf(vm.name)))];
      const workspaceNames = new Map((await workspaces.namesOf(tags)).map((w) => [w.id, w.name]));
      const gamespaceNames = new Map((await gamespaces.namesOf(tags)).map((g) => [g.id, g.name]));
      const playerNames = await players.namesIn([...gamespaceNames.keys()]);
      return vms
        .map((vm) => {
          const tag = tagOf(vm.name);
          const groupName = groupNameOf(tag, workspaceNames, gamespaceNames);
          if (!gamespaceNames.has(tag) || workspaceNames.has(tag)) return { ...vm, groupName };
          return { ...vm, groupName, playerNames: playerNames.get(tag) ?? [] };
        })
        .sort((a, b) => byCodePoint(a.groupName, b.groupName) || byCodePoint(a.name, b.name));
    },

    /** GET /api/vm/{id}: the machine, or null. */
    async load(actor: Actor, id: string): Promise<Vm | null> {
      await authorize(actor, id);
      const machine = await driver.load(id);
      return machine && dto(machine);
    },

    /**
     * PUT /api/vm: start, stop, save, revert, reset (CanManageVm) or delete (CanDeleteVm).
     * Saving commits into the workspace's disks, which running gamespaces of it share.
     */
    async operate(actor: Actor, operation: VmOperation): Promise<Vm> {
      const tag = await authorize(
        actor,
        operation.id,
        operation.type === 'delete' ? 'delete' : 'manage',
      );
      const running = operation.type === 'save' ? await activeGamespaces(tag) : 0;
      // The count is ours (the SPA says how many to end); the name is what TopoMojo answers.
      if (running > 0) {
        throw new DomainError('WorkspaceNotIsolated', undefined, { gamespaces: running });
      }
      const vm = dto(await driver.changeState(operation.id, operation.type));
      publish(actor, `VM.${operation.type.toUpperCase()}`, vm);
      return vm;
    },

    /** DELETE /api/vm/{id}. */
    async remove(actor: Actor, id: string): Promise<Vm> {
      await authorize(actor, id, 'delete');
      const vm = dto(await driver.delete(id));
      publish(actor, 'VM.DELETE', vm);
      return vm;
    },

    /**
     * PUT /api/vm/{id}/change. Non-builders may only attach a NIC to an isolated net of the
     * machine's own tag. Quirk fixed: the reference accepts any net containing '#', so a player
     * could join another gamespace's network.
     */
    async change(actor: Actor, id: string, change: VmChange): Promise<Vm> {
      const tag = await authorize(actor, id);
      const key = change.key.toLowerCase();
      if (
        !actor.isBuilder &&
        (key === 'net' || key === 'eth') &&
        !isIsolatedNet(change.value, tag)
      ) {
        throw new DomainError('ActionForbidden');
      }
      // Quirk fixed: the reference mounts any path, so a player could mount another workspace's
      // file or a path outside the ISO store.
      if (key === 'iso') {
        const path = isoPathOf(change.value);
        // Admins may mount any file of the ISO store (as GET /api/admin/isos lists them), never
        // a path out of it; everyone else what the machine's workspace may use.
        const allowed =
          !path || (actor.isAdmin ? isStorePath(path) : (await usableIsos(tag)).includes(path));
        if (!allowed) throw new DomainError('ActionForbidden');
      }
      const vm = dto(await driver.changeConfiguration(id, parseChange(change), actor.isBuilder));
      publish(actor, 'VM.CHANGE', vm);
      return vm;
    },

    /** PUT /api/vm/{id}/answer. */
    async answer(actor: Actor, id: string, answer: VmAnswer): Promise<Vm> {
      await authorize(actor, id);
      const machine = await driver.load(id);
      if (!machine) throw notFound();
      // Answering a question the machine does not ask changes nothing, as in the reference.
      const asked = machine.question?.id === answer.questionId;
      const vm = dto(asked ? await driver.answer(id, answer) : machine);
      publish(actor, 'VM.ANSWER', vm);
      return vm;
    },

    /** GET /api/vm/{id}/isos: the ISOs its workspace may use (see usableIsos). */
    async isos(actor: Actor, id: string): Promise<VmOptions> {
      return { iso: await usableIsos(await authorize(actor, id)), net: null };
    },

    /** GET /api/vm/{id}/nets: non-builders get only isolated nets. */
    async nets(actor: Actor, id: string): Promise<VmOptions> {
      const nets = await driver.netOptions(await authorize(actor, id));
      // The machine's NICs come with its choices: a console signed in by the launch cookie may
      // not read the machine itself (GET vm/{id}), yet shows each NIC on its network.
      const nics = (await driver.load(id))?.nics.map((n) => ({ ...n })) ?? [];
      const capabilities = vmCapabilitiesOf(driver.capabilities);
      if (actor.isBuilder) return { iso: null, net: nets, nics, capabilities };
      return { iso: null, net: nets.filter((net) => net.includes('#')), nics, capabilities };
    },

    /**
     * GET /api/workspace/{id}/nets (wire reference §1.1): the nets the workspace's templates may
     * use, for its editors (ws.CanEdit); an unknown workspace is 400 ResourceNotFound.
     */
    async workspaceNets(
      actor: Actor,
      workspaceId: string,
      workspaces: WorkspaceAccess,
    ): Promise<VmOptions> {
      if (!(await workspaces.exists(workspaceId))) throw unknownArgument('id');
      if (!(await workspaces.canEdit(actor, workspaceId))) throw forbidden();
      return { iso: null, net: await driver.netOptions(workspaceId) };
    },

    /** Whether the actor may open the machine's console now (the console socket asks). */
    async mayOpenConsole(actor: Actor, id: string): Promise<boolean> {
      try {
        await authorize(actor, id);
        return true;
      } catch (error) {
        if (error instanceof Forbidden) return false;
        throw error;
      }
    },

    consoleAccess,

    /**
     * Whether the actor may put input into the machine other than through its console (paste,
     * files): players and admins, not those who only watch it.
     */
    async mayControlConsole(actor: Actor, id: string): Promise<boolean> {
      return (await consoleAccess(actor, id))?.mayControl ?? false;
    },

    /**
     * GET /api/vm-console/{id}: the driver's console address and ticket. Ours: the ticket is
     * view-only for an observer, and for an administrator watching a gamespace's machine unless
     * they ask for `control`; an observer asking for control is refused.
     */
    async console(actor: Actor, id: string, control = false): Promise<VmConsole> {
      const tag = await authorize(actor, id);
      const role = await consoleRole(actor, tag);
      if (!role) throw forbidden();
      if (control && role === 'observer') throw forbidden();
      const watching = role === 'admin' && (await gamespaces.find(tag)) !== undefined;
      const viewOnly = role === 'observer' || (watching && !control);
      const machine = await driver.load(id);
      if (!machine) throw notFound();
      const display = await driver.display(machine.id);
      if (display.ticket) {
        await options.consoleTickets?.bind(display.ticket, {
          id: actor.id,
          name: actor.name,
          ...(actor.grant ? { gamespaceId: actor.grant.gamespaceId } : {}),
          ...(actor.isAgent ? { agent: true } : {}),
          ...(viewOnly ? { viewOnly: true } : {}),
        });
      }
      return {
        viewOnly,
        mayTakeControl: viewOnly && role === 'admin',
        id: display.machineId,
        isolationId: tagOf(machine.name),
        name: untagged(machine.name),
        url: display.url,
        ticket: display.ticket,
        isRunning: display.isRunning,
        recorded: (await options.recorded?.(tagOf(machine.name))) ?? false,
      };
    },

    /** GET /api/vm-template/{id}: the builder machine, or where its template stands. */
    async refreshTemplate(actor: Actor, templateId: string): Promise<Vm> {
      const { deployable } = await builderTemplate(actor, templateId);
      return dto(await driver.refresh(toMachineSpec(deployable)));
    },

    /**
     * POST /api/vm-template/{id}: deploys the builder machine (reserved nets for builders).
     * VM.DEPLOY carries the template id as the model's id, which is how editors of the template
     * that have no machine id yet recognize it.
     */
    async deployTemplate(actor: Actor, templateId: string): Promise<Vm> {
      const { deployable, tag } = await builderTemplate(actor, templateId);
      const vm = dto(await driver.deploy(toMachineSpec(deployable), actor.isBuilder));
      publish(actor, 'VM.DEPLOY', { ...vm, id: templateId }, tag);
      return vm;
    },

    /** PUT /api/vm-template/{id}: starts copying the template's disks; the least progress. */
    async initializeTemplate(actor: Actor, templateId: string): Promise<number> {
      const { deployable } = await builderTemplate(actor, templateId);
      return driver.createDisks(toMachineSpec(deployable));
    },
  };
}

export type VmService = ReturnType<typeof createVmService>;
