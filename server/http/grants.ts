import type { FastifyRequest } from 'fastify';
import type { Actor } from '../core/actor';

// What a credential issued for one gamespace reaches (issue: "a ticket, cookie or key must never
// open more than what it was issued for"). A grader key, a launch ticket (POST /api/gamespace's
// launchpointUrl), an enlisted guest's ticket, and the tickets and cookies made from them hold
// their actor to one gamespace (`actor.grant`). Such an actor reaches only the routes below, and
// each only for that gamespace; every other route answers 403. The services' own rules still
// apply on top (starting a game needs gs.CanManage, a machine needs CanManageVm, ...).

/** The gamespace a request is about, read from its params or body; null when it names none. */
export type GamespaceOf = (request: FastifyRequest) => Promise<string | null> | string | null;

export interface GrantLookups {
  /** The isolation tag (gamespace id) of a machine named by id, `name#tag` or a bare tag. */
  tagOfVm(id: string): Promise<string>;
  /** The gamespace a dispatch is for; null when there is no such dispatch. */
  groupOfDispatch(id: string): Promise<string | null>;
}

const param = (request: FastifyRequest): string | null => {
  const id = (request.params as { id?: unknown } | undefined)?.id;
  return typeof id === 'string' ? id : null;
};
const bodyId = (request: FastifyRequest): string | null => {
  const body = request.body as { id?: unknown } | null | undefined;
  return body && typeof body === 'object' && typeof body.id === 'string' ? body.id : null;
};
/** Routes about the caller itself, allowed as they are (they answer for the same grant). */
const own = (request: FastifyRequest): string | null => request.actor?.grant?.gamespaceId ?? null;

/** `METHOD url` (HEAD as GET) → which gamespace the request is about. */
export function grantRoutes(lookups: GrantLookups): ReadonlyMap<string, GamespaceOf> {
  const vmParam = async (request: FastifyRequest) => {
    const id = param(request);
    return id ? lookups.tagOfVm(id) : null;
  };
  const vmBody = async (request: FastifyRequest) => {
    const id = bodyId(request);
    return id ? lookups.tagOfVm(id) : null;
  };
  // A dispatch that does not exist is the service's to answer (400 ResourceNotFound).
  const dispatchOf = async (request: FastifyRequest, id: string | null) =>
    (id && (await lookups.groupOfDispatch(id))) ?? own(request);
  const query = (request: FastifyRequest, key: string): string | null => {
    const value = (request.query as Record<string, unknown> | undefined)?.[key];
    return typeof value === 'string' ? value : null;
  };
  const bodyField = (request: FastifyRequest, key: string): string | null => {
    const body = request.body as Record<string, unknown> | null | undefined;
    const value = body && typeof body === 'object' ? body[key] : undefined;
    return typeof value === 'string' ? value : null;
  };
  return new Map<string, GamespaceOf>([
    // Playing the gamespace.
    ['GET /api/gamespace/:id', param],
    ['GET /api/gamespace/:id/challenge/progress', param],
    ['POST /api/gamespace/grade', bodyId],
    ['PUT /api/gamespace', bodyId],
    ['POST /api/gamespace/:id/start', param],
    ['POST /api/gamespace/:id/stop', param],
    ['POST /api/gamespace/:id/complete', param],
    ['POST /api/gamespace/:id/invite', param],
    ['GET /api/players/:id', param],
    // Its machines and their consoles.
    ['GET /api/vm/:id', vmParam],
    ['PUT /api/vm', vmBody],
    ['PUT /api/vm/:id/change', vmParam],
    ['PUT /api/vm/:id/answer', vmParam],
    ['GET /api/vm/:id/isos', vmParam],
    ['GET /api/vm/:id/nets', vmParam],
    ['GET /api/vm-console/:id', vmParam],
    ['GET /api/vm/:id/clipboard', vmParam],
    ['POST /api/vm/:id/clipboard/copy', vmParam],
    ['POST /api/vm/:id/clipboard/paste', vmParam],
    ['GET /api/vm/:id/files', vmParam],
    ['POST /api/vm/:id/files', vmParam],
    // The dispatcher: its in-lab agent reads, answers and sends its gamespace's commands.
    ['POST /api/dispatch', (request) => bodyField(request, 'targetGroup')],
    ['PUT /api/dispatch', (request) => dispatchOf(request, bodyId(request))],
    ['GET /api/dispatch/:id', (request) => dispatchOf(request, param(request))],
    ['DELETE /api/dispatch/:id', (request) => dispatchOf(request, param(request))],
    ['GET /api/dispatches', (request) => query(request, 'gs')],
    // The credential itself: who it is, the console cookie and the hub ticket made from it
    // (both held to the same gamespace), the console's heartbeat and sign-out.
    ['GET /api/user', own],
    ['GET /api/user/ticket', own],
    ['POST /api/user/login', own],
    ['POST /api/user/logout', own],
    ['GET /api/user/ping', own],
  ]);
}

export const routeKey = (method: string, url: string | undefined) =>
  `${method === 'HEAD' ? 'GET' : method} ${url ?? ''}`;

/** True when the actor is not held to a gamespace, or the request is about that gamespace. */
export async function withinGrant(
  routes: ReadonlyMap<string, GamespaceOf>,
  actor: Actor,
  request: FastifyRequest,
): Promise<boolean> {
  if (!actor.grant) return true;
  const about = routes.get(routeKey(request.method, request.routeOptions.url));
  if (!about) return false;
  return (await about(request)) === actor.grant.gamespaceId;
}
