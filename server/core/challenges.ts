import {
  ChallengeShapeError,
  normalizeChallengeSpec,
  parseChallengeText,
  type ChallengeSpec,
} from '../../src/domain/challenge';
import { realClock, type Clock } from '../clock';
import type { ChallengeRepository } from '../store/repositories/challenges';
import { forbidden, ValidationFailed } from './errors';
import { unknownArgument } from './fields';
import type { Actor } from './actor';
import type { WorkspaceService } from './workspaces';

// A workspace's challenge (wire reference §1.1 `api/challenge/{id}`, §2.3): the spec the author
// edits in the Challenge tab, kept as camelCase JSON text in the workspace's `challenge` column,
// the same text the workspace DTO carries and gamespace registration will resolve.

/** The largest challenge body accepted (a spec with hundreds of questions stays far below). */
export const CHALLENGE_BODY_LIMIT = 1024 * 1024;

export function createChallengeService(
  challenges: ChallengeRepository,
  workspaces: Pick<WorkspaceService, 'canEdit'>,
  clock: Clock = realClock,
) {
  /** The workspace's stored text, or 400 ResourceNotFound (before authorization, as elsewhere). */
  async function stored(id: unknown): Promise<{ id: string; challenge: string }> {
    const key = typeof id === 'string' && id.length > 0 && id.length <= 64 ? id : null;
    const row = key ? await challenges.find(key) : undefined;
    if (!row) throw unknownArgument('id');
    return row;
  }

  return {
    /** GET /api/challenge/{id} (ws.CanEdit): the stored spec, or the empty one. */
    async get(actor: Actor, id: unknown): Promise<ChallengeSpec> {
      const ws = await stored(id);
      if (!(await workspaces.canEdit(actor, ws.id))) throw forbidden();
      return parseChallengeText(ws.challenge);
    },

    /**
     * PUT /api/challenge/{id} (ws.CanEdit): stores the spec normalized (defaults filled in, blank
     * section names null, prerequisites as fractions and the first sets' 0). A body of the wrong
     * shape is a 400 naming the field.
     */
    async update(actor: Actor, id: unknown, model: unknown): Promise<ChallengeSpec> {
      const ws = await stored(id);
      if (!(await workspaces.canEdit(actor, ws.id))) throw forbidden();
      let spec: ChallengeSpec;
      try {
        spec = normalizeChallengeSpec(model);
      } catch (error) {
        if (error instanceof ChallengeShapeError)
          throw new ValidationFailed('model', error.message);
        throw error;
      }
      await challenges.store(ws.id, JSON.stringify(spec), clock.now());
      return spec;
    },
  };
}

export type ChallengeService = ReturnType<typeof createChallengeService>;
