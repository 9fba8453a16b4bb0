import { describe, expect, it } from 'vitest';
import { canCreateWorkspace, mayCreateWorkspaces } from './workspaceAccess';

describe('who may create workspaces', () => {
  it('lets creators always, others with a workspace limit, and never a player without one or an agent', () => {
    expect(mayCreateWorkspaces({ isCreator: true, workspaceLimit: 0 })).toBe(true);
    expect(mayCreateWorkspaces({ isCreator: false, workspaceLimit: 2 })).toBe(true);
    expect(mayCreateWorkspaces({ isCreator: false, workspaceLimit: 0 })).toBe(false);
    expect(mayCreateWorkspaces({ isCreator: false, workspaceLimit: 2, isAgent: true })).toBe(false);
  });

  it('stops a limited user once they manage as many workspaces as their limit', () => {
    const limited = { isCreator: false, workspaceLimit: 2 };
    expect(canCreateWorkspace(limited, 1)).toBe(true);
    expect(canCreateWorkspace(limited, 2)).toBe(false);
    expect(canCreateWorkspace({ isCreator: true, workspaceLimit: 0 }, 50)).toBe(true);
    expect(canCreateWorkspace({ isCreator: false, workspaceLimit: 0 }, 0)).toBe(false);
  });
});
