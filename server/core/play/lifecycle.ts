import { parseChallengeText } from '../../../src/domain/challenge';
import { latestExpiration } from '../../../src/domain/gameLength';
import type { GamespaceTable, WorkspaceTable } from '../../store/schema';
import { isoDate, parseDate } from '../dto';
import { DomainError, forbidden } from '../errors';
import { actorRef } from '../fields';
import type { GameState } from '../gamespaces';
import { EMPTY_GUID } from '../ids';
import { toMachineSpec } from '../machineSpecs';
import type { Actor } from '../actor';
import { untagged } from '../../hypervisor';
import { vmDto } from '../vmViews';
import type { PlayContext } from './context';
import { deployAndWait, DEPLOY_POLL, gamespaceTemplates } from './deploy';
import { isBelowLimit, oneLaunchOfActor } from './launch';
import { maxDuration } from './registration';

// A gamespace's life after its launch (wire reference §4.2, §4.5): deploying its machines,
// starting, stopping, extending, completing and deleting it.

/** Who the janitor's changes are announced as. */
const JANITOR_ACTOR = { id: EMPTY_GUID, name: 'Janitor' };

export function createLifecycle(context: PlayContext) {
  const { options, repos, now, state, publishGame, announce, gameEvents } = context;
  /** Who did it, as the event log names them. */
  const by = (actor: Actor) => ({ actorId: actor.id, actorName: actor.name });

  /**
   * Deploys the machines of the gamespace's variant; once all of them exist the gamespace starts
   * (startTime is set only once). Returns the row as it is afterwards.
   */
  async function deploy(
    g: GamespaceTable,
    actor: Actor,
    workspace?: WorkspaceTable,
  ): Promise<GamespaceTable> {
    // The launch that just read the workspace hands it over.
    const ws =
      workspace?.id === g.workspaceId && workspace
        ? workspace
        : g.workspaceId
          ? await context.findWorkspace(g.workspaceId)
          : undefined;
    if (!ws) return g;
    const spec = parseChallengeText(g.challenge);
    const rows = await repos.templates.ofWorkspaceWithParentDetail(ws.id);
    const specs = gamespaceTemplates(g, ws, rows, spec).map(toMachineSpec);
    // A ready set of the workspace's warm pool instead of a deploy, when there is one: its
    // machines are then all there and the deploy below has nothing to add. Builders' launches
    // deploy: their machines may keep reserved nets, which pooled sets (unprivileged) do not.
    const pooled = !actor.isBuilder && !!(await options.pools?.claim(g, ws, rows, specs));
    if (pooled) {
      void gameEvents.record({
        gamespaceId: g.id,
        kind: 'deploy',
        ...by(actor),
        detail: `${specs.length} machine${specs.length === 1 ? '' : 's'} from the warm pool`,
      });
    }
    const { complete, deployed } = await deployAndWait(
      options.driver,
      { gamespaceId: g.id, hostAffinity: !!ws.hostAffinity, privileged: actor.isBuilder },
      specs,
      options.deployPoll ?? DEPLOY_POLL,
      context.clock,
    );
    let started: GamespaceTable | undefined;
    if (complete && g.startTime <= 0) {
      started = await repos.gamespaces.markStarted(g.id, now());
      options.stateCache?.forget(g.id);
    }
    // Announced after the start is stored: a page that reads on the announcement sees it started
    // (and kept states of the gamespace are dropped only once it is).
    for (const vm of deployed) {
      // The driver answers every machine of the gamespace; a claimed set's are recorded above.
      if (!pooled) {
        void gameEvents.record({
          gamespaceId: g.id,
          kind: 'deploy',
          ...by(actor),
          machineId: vm.id,
          machineName: untagged(vm.name),
        });
      }
      options.vmPublisher.publish(g.id, 'VmEvent', {
        action: 'VM.DEPLOY',
        actor: actorRef(actor),
        model: vmDto(vm, options.driver.capabilities),
      });
    }
    // Started by another call meanwhile: as that one stored it.
    if (complete && g.startTime <= 0 && !started) started = await context.findGamespace(g.id);
    return started ?? g;
  }

  return {
    deploy,

    /**
     * PUT /api/gamespace: a new expiration time (gs.CanManage), at most one game length and one
     * Extend from now (src/domain/gameLength latestExpiration; the reference has no bound).
     */
    async update(actor: Actor, model: { id?: unknown; expirationTime?: unknown }): Promise<void> {
      const g = await context.assertManage(actor, model.id);
      const expirationTime = parseDate(model.expirationTime);
      if (expirationTime <= 0) throw new DomainError('InvalidOperation');
      const ws = g.workspaceId ? await context.findWorkspace(g.workspaceId) : undefined;
      const cap = maxDuration(actor.gamespaceMaxMinutes, ws?.durationMinutes ?? 0);
      const latest = latestExpiration(now(), cap);
      if (expirationTime > latest) {
        throw new DomainError('GamespaceExtensionTooLong', undefined, {
          maxMinutes: Math.round((latest - now()) / 60_000),
        });
      }
      await repos.gamespaces.setExpiration(g.id, expirationTime);
      void gameEvents.record({
        gamespaceId: g.id,
        kind: 'extension',
        ...by(actor),
        detail: `Ends ${isoDate(expirationTime)}`,
      });
      await announce(actor, g.id);
    },

    /** GAME.UPDATE for a change made outside this service (the janitor ending a game). */
    changed: (gamespaceId: string) => announce(JANITOR_ACTOR, gamespaceId),

    /** POST /api/gamespace/{id}/start: deploys unless ended or expired; GAME.UPDATE. */
    async start(actor: Actor, id: unknown): Promise<GameState> {
      let g = await context.assertManage(actor, id);
      if (g.endTime <= 0 && g.expirationTime > now()) {
        // Not the reference's, which checks the limit only at a launch: the first start of the
        // actor's own gamespace adds to their count, so it is held and counted as a launch is
        // (launch.ts, oneLaunchOfActor); registering several without starting them and then
        // starting them all would otherwise pass the limit.
        const counted = g.managerId === actor.id && g.startTime <= 0;
        g = counted
          ? await oneLaunchOfActor(context, actor, async () => {
              const fresh = (await context.findGamespace(g.id)) ?? g;
              if (fresh.startTime <= 0 && !(await isBelowLimit(context, actor))) {
                throw new DomainError('ClientGamespaceLimitReached');
              }
              return deploy(fresh, actor);
            })
          : await deploy(g, actor);
      }
      const result = await state(g);
      publishGame(actor, 'GAME.UPDATE', g.id, result);
      return result;
    },

    /** POST /api/gamespace/{id}/stop: the machines go; the gamespace does not end. */
    async stop(actor: Actor, id: unknown): Promise<GameState> {
      const g = await context.assertManage(actor, id);
      await options.deleteMachines(g.id);
      const result = await state(g);
      publishGame(actor, 'GAME.UPDATE', g.id, result);
      return result;
    },

    /**
     * POST /api/gamespace/{id}/complete: ends it now and answers the ended state, as the
     * reference does. Its machines are refused from here on (vms.ts), and their removal starts
     * in the background rather than waiting for the janitor, as the reference's does.
     */
    async complete(actor: Actor, id: unknown): Promise<GameState> {
      const g = await context.assertManage(actor, id);
      if (g.endTime <= 0) {
        await repos.gamespaces.setEndTime(g.id, now());
        void gameEvents.record({ gamespaceId: g.id, kind: 'complete', ...by(actor) });
      }
      const result = await state((await context.findGamespace(g.id)) ?? g);
      publishGame(actor, 'GAME.UPDATE', g.id, result);
      options.machinesEnded(g.id);
      return result;
    },

    /**
     * DELETE /api/gamespace/{id} (gs.CanInteract). Unless an admin, only a gamespace that allows
     * reset may be deleted. Quirk fixed: the reference deletes the machines before this check,
     * so a refused player loses the machines of a gamespace that stays; here nothing is touched.
     */
    async remove(actor: Actor, id: unknown): Promise<void> {
      const g = await context.existing(id);
      if (!(await context.canInteract(actor, g))) throw forbidden();
      if (!actor.isAdmin && !g.allowReset) throw new DomainError('ActionForbidden');
      await options.deleteMachines(g.id);
      await repos.gamespaces.remove(g.id);
      publishGame(actor, 'GAME.OVER', g.id, { id: g.id });
      context.listeners.revoke({ group: g.id });
    },
  };
}

export type Lifecycle = ReturnType<typeof createLifecycle>;
