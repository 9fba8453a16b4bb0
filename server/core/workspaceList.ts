import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkspaceTable } from '../store/schema';
import { hasAnyToken } from './dto';
import { ValidationFailed } from './errors';
import { normalizeTerm, paging } from './fields';
import type { Actor } from './actor';
import type { WorkspaceContext } from './workspaceContext';
import { workspaceSummaryDto, type WorkspaceSummaryDto } from './workspaceViews';

// The workspace list (wire reference §1.1, "Workspace list semantics"): who sees which
// workspaces, in which order, and how much of their documents.

/** The markdown document's cut line: the list shows the part above it with `doc=1`. */
export const MARKDOWN_CUT_LINE = '<!-- cut -->';

export interface WorkspaceSearch {
  term?: string;
  skip?: number;
  take?: number;
  sort?: string;
  filter?: string[];
  aud?: string;
  /** 0 = no text, 1 = the document above the cut line, 2 (or more) = the whole document. */
  doc?: number;
}

const tokens = (s: string) =>
  s
    .toLowerCase()
    .split(/[\s,;]+/)
    .filter(Boolean);

/** Every token of `wanted` is in `scope`: the actor may ask for that audience. */
const hasScope = (scope: string, wanted: string) => {
  const own = new Set(tokens(scope));
  return tokens(wanted).every((t) => own.has(t));
};

const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export function createWorkspaceList(context: WorkspaceContext) {
  const { repo, canEdit, docsDir } = context;

  async function markdown(id: string, aboveCut: boolean): Promise<string> {
    if (!docsDir) return '';
    let text = '';
    try {
      text = await readFile(join(docsDir, `${id}.md`), 'utf8');
    } catch {
      // No document yet.
    }
    return aboveCut ? (text.split(MARKDOWN_CUT_LINE)[0] ?? '') : text;
  }

  /**
   * GET /api/workspaces. Administrators and `filter=my` query the store (`my`: where the actor is
   * a worker). Everyone else gets the workspaces whose audience shares a token with their scope
   * plus "everyone", and the ones they work on. With `aud` (which must be in the actor's scope),
   * the audience is compared with `aud` alone: the caller asks what is published to that
   * audience, so its own workspaces are not added.
   */
  return async function list(
    actor: Actor,
    search: WorkspaceSearch,
  ): Promise<WorkspaceSummaryDto[]> {
    const aud = (search.aud ?? '').trim();
    if (aud && !hasScope(actor.scope, aud)) {
      throw new ValidationFailed('search', 'ActorLacksAudienceScope');
    }
    const { skip, take } = paging(search);
    const term = normalizeTerm(search.term);
    const filters = (search.filter ?? []).map((f) => f.toLowerCase());
    const mine = filters.includes('my');
    // The sidebar's Play list: only what is published to the actor, administrators included,
    // not every workspace an administrator may see nor the actor's own unpublished ones.
    const play = filters.includes('play') && !mine;
    const byAge = (search.sort ?? '').toLowerCase() === 'age';

    let rows: WorkspaceTable[];
    if ((actor.isAdmin && !play) || mine) {
      rows = await repo.search({
        term,
        ...(mine ? { workerId: actor.id } : {}),
        byAge,
        page: { skip, take },
      });
    } else {
      const own = new Set(aud || play ? [] : await repo.workedOnBy(actor.id));
      const scope = aud || `${actor.scope} everyone`;
      rows = (await repo.search({ term, byAge }))
        .filter((w) => own.has(w.id) || hasAnyToken(w.audience, scope))
        .sort((a, b) =>
          byAge
            ? b.whenCreated - a.whenCreated || byCodePoint(a.id, b.id)
            : byCodePoint(a.name, b.name) || byCodePoint(a.id, b.id),
        )
        .slice(skip, skip + take);
    }

    // Quirk fixed: the reference answers doc=2 with the whole guide to anyone who may list
    // the workspace; the part below the cut is for those who may edit it (the play page shows
    // it only once a game has started).
    const doc = search.doc ?? 0;
    return Promise.all(
      rows.map(async (w) => {
        if (doc <= 0) return workspaceSummaryDto(w, null);
        const whole = doc >= 2 && (await canEdit(actor, w.id));
        return workspaceSummaryDto(w, await markdown(w.id, !whole));
      }),
    );
  };
}
