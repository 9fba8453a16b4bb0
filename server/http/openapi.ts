import type { FastifyInstance, FastifySchema, RouteOptions } from 'fastify';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { Policy } from '../auth/authenticate';
import { anonymousErrorResponses, emptySchema } from './schemas';

// The API's description (OpenAPI 3.1), generated from the route schemas as they are registered:
// `GET /api/openapi.json`, and an interactive page at `/api` (Swagger UI) where a client
// developer enters a token or an API key and tries the calls. The document names operations as
// the reference does, so that clients generated from either agree (wire reference §0).

export const OPENAPI_PATH = '/api/openapi.json';
/** Where the interactive page lives; its own files are below it. */
const UI_PREFIX = '/api';

/** The interactive page's own routes, which are not part of the API. */
export function isDocumentationPage(url: string): boolean {
  return (
    url === UI_PREFIX ||
    url === `${UI_PREFIX}/` ||
    url === `${UI_PREFIX}/json` ||
    url === `${UI_PREFIX}/yaml` ||
    url.startsWith(`${UI_PREFIX}/static/`)
  );
}

/**
 * The page and the document are for everyone, so a client developer can read them before
 * holding a credential. Registered before the route table records policies (server/app.ts).
 */
export function markDocumentationAnonymous(route: RouteOptions): void {
  if (isDocumentationPage(route.url) || route.url === OPENAPI_PATH) {
    route.config = { ...route.config, auth: 'anonymous' };
  }
}

/** The reference's operation ids (`[SwaggerOperation]` in cmu-sei/TopoMojo's controllers). */
const OPERATION_IDS: Readonly<Record<string, string>> = {
  'POST /api/admin/announce': 'PostAnnouncement',
  'GET /api/admin/live': 'ListActiveUsers',
  'POST /api/admin/janitor': 'RunJanitorCleanup',
  'POST /api/admin/janitor/idlewsvms': 'RunJanitorCleanupIdleWorkspaceVms',
  'GET /api/admin/log': 'GetAdminLog',
  'GET /api/admin/isos': 'GetAllIsos',
  'POST /api/dispatch': 'CreateDispatch',
  'GET /api/dispatch/:id': 'GetDispatch',
  'PUT /api/dispatch': 'UpdateDispatch',
  'DELETE /api/dispatch/:id': 'DeleteDispatch',
  'GET /api/dispatches': 'ListDispatches',
  'GET /api/document/:id': 'LoadDocument',
  'PUT /api/document/:id': 'SaveDocument',
  'GET /api/images/:id': 'ListDocumentImages',
  'DELETE /api/image/:id': 'DeleteDocumentImage',
  'POST /api/image/:id': 'UploadDocument',
  'GET /api/file/progress/:key': 'CheckFileUploadProgress',
  'POST /api/file/upload': 'UploadWorkspaceFile',
  'GET /api/workspace/:id/iso-usage': 'GetIsoUsage',
  'DELETE /api/workspace/:id/iso': 'DeleteWorkspaceIso',
  'GET /api/gamespaces': 'ListGamespaces',
  'GET /api/preview/:id': 'PreviewGamespace',
  'GET /api/gamespace/:id': 'LoadGamespace',
  'GET /api/gamespace/:id/challenge': 'LoadGamespaceChallenge',
  'GET /api/gamespace/:id/challenge/progress': 'LoadGamespaceChallengeProgress',
  'POST /api/gamespace': 'RegisterGamespace',
  'PUT /api/gamespace': 'UpdateGamespace',
  'POST /api/gamespace/:id/start': 'StartGamespace',
  'POST /api/gamespace/:id/stop': 'StopGamespace',
  'POST /api/gamespace/:id/complete': 'CompleteGamespace',
  'POST /api/gamespace/grade': 'GradeChallenge',
  'POST /api/gamespace/:id/regrade': 'RegradeChallenge',
  'POST /api/gamespace/:id/audit': 'AuditChallenge',
  'DELETE /api/gamespace/:id': 'DeleteGamespace',
  'POST /api/gamespace/:id/invite': 'GetGamespaceInvitation',
  'DELETE /api/gamespace/:id/player/:subjectId': 'RemovePlayer',
  'GET /api/players/:id': 'GetGamespacePlayers',
  'GET /api/gamespace-favorites': 'ListGamespaceFavorites',
  'PUT /api/gamespace-favorite/:id': 'FavoriteGamespace',
  'DELETE /api/gamespace-favorite/:id': 'UnfavoriteGamespace',
  'GET /api/templates': 'ListTemplates',
  'GET /api/template/:id/siblings': 'ListSiblings',
  'GET /api/template/:id': 'LoadTemplate',
  'PUT /api/template': 'UpdateTemplate',
  'DELETE /api/template/:id': 'DeleteTemplate',
  'POST /api/template': 'LinkTemplate',
  'POST /api/template/unlink': 'UnLinkTemplate',
  'POST /api/template/relink': 'ReLinkTemplate',
  'GET /api/template-detail/:id': 'LoadTemplateDetail',
  'POST /api/template-detail': 'CreateTemplateDetail',
  'POST /api/template/clone': 'CloneTemplateDetail',
  'PUT /api/template-detail': 'ConfigureTemplateDetail',
  'GET /api/report/disks': 'AttachedDisksReport',
  'GET /api/healthz/:id': 'CheckHealth',
  'GET /api/template-favorites': 'ListTemplateFavorites',
  'PUT /api/template-favorite/:id': 'FavoriteTemplate',
  'DELETE /api/template-favorite/:id': 'UnfavoriteTemplate',
  'GET /api/users': 'ListUsers',
  'GET /api/user/scopes': 'ListAllScopes',
  // The reference's `api/user/{idorme?}` is one operation; here it is two routes.
  'GET /api/user': 'LoadUser',
  'GET /api/user/:id': 'LoadUserById',
  'GET /api/user/:id/workspaces': 'LoadUserWorkspaces',
  'GET /api/user/:id/gamespaces': 'LoadUserGamespaces',
  'POST /api/user': 'AddOrUpdateUser',
  'DELETE /api/user/:id': 'DeleteUser',
  'GET /api/user/:id/worker': 'IsWorker',
  'GET /api/user/:id/keys': 'GetUserKeys',
  'POST /api/apikey/:id': 'CreateUserKey',
  'DELETE /api/apikey/:keyId': 'DeleteUserKey',
  'GET /api/user/ticket': 'GetOneTimeTicket',
  'GET /api/version': 'GetAppVersion',
  'GET /api/vms': 'ListVms',
  'GET /api/vm/:id': 'LoadVm',
  'PUT /api/vm': 'ChangeVm',
  'DELETE /api/vm/:id': 'DeleteVm',
  'PUT /api/vm/:id/change': 'ReconfigureVm',
  'PUT /api/vm/:id/answer': 'AnswerVmQuestion',
  'GET /api/vm/:id/isos': 'GetVmIsoOptions',
  'GET /api/vm/:id/nets': 'GetVmNetOptions',
  'GET /api/vm-console/:id': 'GetVmTicket',
  'GET /api/vm-template/:id': 'ResolveVmFromTemplate',
  'POST /api/vm-template/:id': 'DeployVm',
  'PUT /api/vm-template/:id': 'InitializeVmTemplate',
  'GET /api/workspaces': 'ListWorkspaces',
  'GET /api/workspace/:id': 'LoadWorkspace',
  'POST /api/workspace': 'CreateWorkspace',
  'POST /api/workspace/:id/clone': 'CloneWorkspace',
  'PUT /api/workspace': 'UpdateWorkspace',
  'PUT /api/workspace/priv': 'PrivilegedUpdateWorkspace',
  'DELETE /api/workspace/:id': 'DeleteWorkspace',
  'GET /api/workspace/:id/isos': 'LoadWorkspaceIsos',
  'GET /api/workspace/:id/nets': 'LoadWorkspaceNets',
  'GET /api/workspace/:id/stats': 'GetWorkspaceStats',
  'GET /api/workspace/:id/templates': 'LoadWorkspaceTemplates',
  'DELETE /api/workspace/:id/games': 'DeleteWorkspaceGames',
  'PUT /api/workspace/:id/invite': 'GetWorkspaceInvite',
  'GET /api/challenge/:id': 'GetChallengeSpec',
  'PUT /api/challenge/:id': 'UpdateChallengeSpec',
  'DELETE /api/workspace/:id/worker/:subjectId': 'RemoveWorker',
  'GET /api/workspace-favorites': 'ListWorkspaceFavorites',
  'PUT /api/workspace-favorite/:workspaceId': 'FavoriteWorkspace',
  'DELETE /api/workspace-favorite/:workspaceId': 'UnfavoriteWorkspace',
  // Routes the reference leaves out of its document, or that are ours.
  'POST /api/worker/:code': 'EnlistWorker',
  'POST /api/player/:code': 'JoinGamespace',
  'PUT /api/player/enlist': 'EnlistPlayer',
  'POST /api/user/register': 'RegisterUser',
  'POST /api/user/login': 'Login',
  'POST /api/user/logout': 'Logout',
  'GET /api/user/ping': 'PingSession',
  'GET /api/health/version': 'GetHealthVersion',
  'GET /api/document/:id/crdt': 'LoadDocumentLog',
  'GET /api/console/vnc/:id': 'OpenConsole',
  'GET /api/gamespace/:id/events': 'ListGamespaceEvents',
  'GET /api/workspace/:id/results': 'ListWorkspaceResults',
  'GET /api/workspace/:id/results.csv': 'ExportWorkspaceResults',
  'GET /api/my/results': 'ListMyResults',
  [`GET ${OPENAPI_PATH}`]: 'GetOpenApiDocument',
};

/**
 * A route without a name in the table (a new one) still gets a stable id from its method and
 * path: `GET /api/vm/:id/isos` is `GetVmIdIsos`.
 */
function derivedOperationId(method: string, url: string): string {
  const words = `${method.toLowerCase()} ${url.replace(/^\/api\//, '')}`.split(/[^A-Za-z0-9]+/);
  return words
    .filter(Boolean)
    .map((w) => w[0]!.toUpperCase() + w.slice(1))
    .join('');
}

/** One tag per resource, from the path's first segment. */
const TAGS: ReadonlyArray<[RegExp, string]> = [
  [/^(workspaces?|workspace-favorites?|worker)$/, 'Workspace'],
  [/^challenge$/, 'Challenge'],
  [/^(gamespaces?|gamespace-favorites?|preview|players?)$/, 'Gamespace'],
  [/^(templates?|template-detail|template-favorites?|report|healthz)$/, 'Template'],
  [/^(vms?|vm-console|vm-template|pod)$/, 'Vm'],
  [/^(document|images?)$/, 'Document'],
  [/^file$/, 'File'],
  [/^(users?|apikey)$/, 'User'],
  [/^(health|version)$/, 'Health'],
  [/^admin$/, 'Admin'],
  [/^dispatch(es)?$/, 'Dispatch'],
  [/^console$/, 'Console'],
  // Ours: what observers watch (the wall, help requests, alerts, recordings), a caller's own.
  [/^(wall|help|alerts|recording)$/, 'Observe'],
  [/^my$/, 'User'],
];

function tagOf(url: string): string {
  const segment = url.split('/')[2] ?? '';
  return TAGS.find(([pattern]) => pattern.test(segment))?.[1] ?? 'Api';
}

/** Which schemes a route's policy accepts (server/auth/authenticate.ts POLICY_SCHEMES). */
const SECURITY: Record<Policy, Array<Record<string, string[]>>> = {
  anonymous: [],
  default: [{ bearer: [] }, { apiKey: [] }],
  admin: [{ bearer: [] }, { apiKey: [] }],
  anyUser: [{ bearer: [] }, { apiKey: [] }, { ticket: [] }, { cookie: [] }],
  cookie: [{ cookie: [] }],
  interactive: [{ bearer: [] }],
};

const POLICY_NOTES: Partial<Record<Policy, string>> = {
  admin: 'Administrators only.',
  anyUser: 'Also accepts a one-time ticket or the console cookie.',
  cookie: 'With the console cookie only.',
  interactive: 'With the access token of an interactive sign-in only: not an API key.',
};

type RouteSchema = Record<string, unknown> & { description?: string; summary?: string };

const ACRONYMS: Readonly<Record<string, string>> = {
  Api: 'API',
  Crdt: 'CRDT',
  Id: 'ID',
  Iso: 'ISO',
  Isos: 'ISOs',
  Vm: 'VM',
  Vms: 'VMs',
};

/**
 * An operation's one-line summary from its id, for a route whose schema gives none:
 * `RunJanitorCleanup` -> `Run janitor cleanup`, `GetOpenApiDocument` -> `Get open API document`.
 */
export function summaryOf(operationId: string): string {
  return operationId
    .replace(/([a-z\d])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(' ')
    .map((word, i) => ACRONYMS[word] ?? (i === 0 ? word : word.toLowerCase()))
    .join(' ');
}

function describe(schema: RouteSchema | undefined, url: string, route: RouteOptions): RouteSchema {
  // Pages, the identity provider, the hub and the guide images are not the API.
  if (!url.startsWith('/api/') || isDocumentationPage(url)) return { ...schema, hide: true };
  const methods = Array.isArray(route.method) ? route.method : [route.method];
  const method = methods.find((m) => m !== 'HEAD') ?? methods[0]!;
  const policy = (route.config as { auth?: Policy } | undefined)?.auth ?? 'default';
  const note = POLICY_NOTES[policy];
  const operationId =
    OPERATION_IDS[`${method} ${url}`] ?? derivedOperationId(method, url.replace(/:/g, ''));
  return {
    ...schema,
    // @fastify/websocket hides its routes; the console's is part of the API all the same (101).
    hide: false,
    operationId,
    summary: schema?.summary ?? summaryOf(operationId),
    tags: [tagOf(url)],
    security: SECURITY[policy],
    ...(note ? { description: [schema?.description, note].filter(Boolean).join(' ') } : {}),
  };
}

type Responses = Record<string, { content?: Record<string, { schema?: unknown }> }>;

/**
 * An empty answer (401, 403, the 200 of most changes) has no body, so no content in the document;
 * the route schemas give it a schema without a type only so that nothing is serialized.
 */
function withoutEmptyBodies<T extends object>(document: T): T {
  const empty = JSON.stringify(emptySchema);
  const paths = (document as { paths?: Record<string, Record<string, { responses?: Responses }>> })
    .paths;
  for (const operations of Object.values(paths ?? {})) {
    for (const operation of Object.values(operations)) {
      for (const response of Object.values(operation.responses ?? {})) {
        const media = Object.values(response.content ?? {});
        if (media.length && media.every((m) => JSON.stringify(m.schema) === empty)) {
          delete response.content;
        }
      }
    }
  }
  return document;
}

export async function registerOpenApi(app: FastifyInstance, options: { version: string }) {
  /** GET /api/openapi.json's answer, written on its first request. */
  let documentText: string | undefined;
  await app.register(fastifySwagger, {
    mode: 'dynamic',
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Topoplay API',
        version: options.version,
        description:
          'The TopoMojo wire protocol as Topoplay serves it. Authorize with an access token ' +
          '(bearer) or an API key (x-api-key) to try the calls. The document itself is at ' +
          `[${OPENAPI_PATH}](${OPENAPI_PATH}). [Back to Topoplay](/)`,
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
          apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          ticket: {
            type: 'apiKey',
            in: 'query',
            name: 'ticket',
            description: 'A one-time ticket (GET /api/user/ticket), valid 30 s, used once',
          },
          cookie: { type: 'apiKey', in: 'cookie', name: 'topomojo.mks' },
        },
      },
    },
    transformObject: (documentObject) =>
      'openapiObject' in documentObject
        ? withoutEmptyBodies(documentObject.openapiObject)
        : documentObject.swaggerObject,
    transform: ({ schema, url, route }) => ({
      schema: describe(schema as RouteSchema | undefined, url, route) as FastifySchema,
      url,
    }),
  });

  app.get(
    OPENAPI_PATH,
    {
      config: { auth: 'anonymous' },
      schema: {
        response: {
          200: { description: 'This document (OpenAPI 3.1)', type: 'object' },
          ...anonymousErrorResponses,
        },
      },
    },
    // Not through the response schema: it would drop every property it does not list. The
    // document is built once, after the routes are registered, and does not change: its text
    // is written once too rather than on every request.
    async (_request, reply) =>
      reply
        .type('application/json; charset=utf-8')
        .send((documentText ??= JSON.stringify(app.swagger()))),
  );

  await app.register(fastifySwaggerUi, {
    routePrefix: UI_PREFIX,
    // No calls to an outside validator; authorization stays in the tab, never in localStorage.
    validatorUrl: false,
    // The product's own page: its title, and no Swagger top bar (its logo and the "Explore" box
    // that points at /api/json); the document's info block names the API and links back.
    theme: { title: 'Topoplay API' },
    uiConfig: {
      docExpansion: 'list',
      deepLinking: true,
      persistAuthorization: false,
      layout: 'BaseLayout',
    },
  });
}
