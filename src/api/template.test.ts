import * as E from 'fp-ts/Either';
import { describe, expect, it } from 'vitest';
import { recordingClient } from './testing/recordingClient';
import {
  deleteTemplate,
  linkTemplate,
  listScopedTemplates,
  listTemplateSiblings,
  relinkTemplate,
  searchPublishedTemplates,
  unlinkTemplate,
  updateTemplate,
} from './template';
import {
  cloneWorkspace,
  deleteWorkspace,
  endWorkspaceGames,
  generateWorkspaceInvitation,
  listWorkspaceIsos,
  removeWorker,
  updateWorkspace,
} from './workspace';

const client = recordingClient;

const signal = () => new AbortController().signal;
const TEMPLATE = { id: 't-1', name: 'linux-server-123', workspaceId: 'ws-1', isLinked: true };

describe('template calls', () => {
  it('search published templates with the term and filter=published', async () => {
    const { http, calls } = client(200, [{ id: 's-1', name: 'linux-server' }]);
    const result = await searchPublishedTemplates(http)('linux server', signal())();
    expect(result).toEqual(E.right([{ id: 's-1', name: 'linux-server' }]));
    expect(calls).toEqual([
      {
        method: 'GET',
        url: '/api/templates?term=linux%20server&filter=published',
        body: undefined,
      },
    ]);
  });

  it('leave an empty term out of the search', async () => {
    const { http, calls } = client(200, []);
    await searchPublishedTemplates(http)('', signal())();
    expect(calls[0]?.url).toBe('/api/templates?filter=published');
  });

  it('reach every template route with the reference shapes', async () => {
    const { http, calls } = client(200, TEMPLATE);
    const link = { templateId: 't-1', workspaceId: 'ws-1' };
    await linkTemplate(http)(link, signal())();
    await unlinkTemplate(http)(link, signal())();
    await relinkTemplate(http)({ ...link, parentId: 't-9' }, signal())();
    await deleteTemplate(http)('t-1', signal())();
    const changed = {
      id: 't-1',
      name: 'web-01',
      description: '',
      networks: 'lan',
      iso: '',
      isHidden: false,
      guestinfo: '',
      replicas: -1,
      variant: 0,
    };
    await updateTemplate(http)(changed, signal())();
    expect(calls).toEqual([
      { method: 'POST', url: '/api/template', body: link },
      { method: 'POST', url: '/api/template/unlink', body: link },
      { method: 'POST', url: '/api/template/relink', body: { ...link, parentId: 't-9' } },
      { method: 'DELETE', url: '/api/template/t-1', body: undefined },
      { method: 'PUT', url: '/api/template', body: changed },
    ]);
  });

  it('list siblings with pub=true and the workspace-scoped templates', async () => {
    const { http, calls } = client(200, []);
    await listTemplateSiblings(http)('t-1', signal())();
    await listScopedTemplates(http)('ws-1', signal())();
    expect(calls.map((c) => c.url)).toEqual([
      '/api/template/t-1/siblings?pub=true',
      '/api/workspace/ws-1/templates',
    ]);
  });
});

describe('workspace calls of the editor', () => {
  it('reach every route with the reference shapes', async () => {
    const { http, calls } = client(200, { id: 'ws-2', name: 'copy', code: 'c0de' });
    const changed = {
      id: 'ws-1',
      name: 'Intro Lab',
      description: '',
      tags: '',
      author: '',
      audience: 'everyone',
      durationMinutes: 60,
    };
    await updateWorkspace(http)(changed, signal())();
    await cloneWorkspace(http)('ws-1', signal())();
    await deleteWorkspace(http)('ws-1', signal())();
    const invitation = await generateWorkspaceInvitation(http)('ws-1', signal())();
    await removeWorker(http)('ws-1', 'u-2', signal())();
    await endWorkspaceGames(http)('ws-1', signal())();
    expect(invitation).toEqual(E.right(expect.objectContaining({ id: 'ws-2', code: 'c0de' })));
    expect(calls).toEqual([
      { method: 'PUT', url: '/api/workspace', body: changed },
      { method: 'POST', url: '/api/workspace/ws-1/clone', body: {} },
      { method: 'DELETE', url: '/api/workspace/ws-1', body: undefined },
      { method: 'PUT', url: '/api/workspace/ws-1/invite', body: {} },
      { method: 'DELETE', url: '/api/workspace/ws-1/worker/u-2', body: undefined },
      { method: 'DELETE', url: '/api/workspace/ws-1/games', body: undefined },
    ]);
  });

  it('list ISO paths from VmOptions, and none when the server sends none', async () => {
    const listed = client(200, { iso: ['ws-1/tools.iso'], net: null });
    expect(
      await listWorkspaceIsos(listed.http)('ws-1', { term: 'tools', local: true }, signal())(),
    ).toEqual(E.right(['ws-1/tools.iso']));
    expect(listed.calls[0]?.url).toBe('/api/workspace/ws-1/isos?term=tools&local=true');
    const empty = client(200, { iso: null });
    expect(
      await listWorkspaceIsos(empty.http)('ws-1', { term: '', local: false }, signal())(),
    ).toEqual(E.right([]));
  });

  it('report a route that is not there as an error, not a crash', async () => {
    const { http } = client(404, { message: 'Route GET:/api/workspace/ws-1/isos not found' });
    const result = await listWorkspaceIsos(http)('ws-1', { term: '', local: false }, signal())();
    expect(E.isLeft(result)).toBe(true);
  });
});
