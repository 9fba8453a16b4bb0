// @vitest-environment jsdom
import { act, type ReactElement } from 'react';
import { createRoot, type Root } from 'react-dom/client';
import { afterEach, describe, expect, it } from 'vitest';
import { TopologyDiagram } from './TopologyDiagram';

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

let root: Root | null = null;
let container: HTMLElement | null = null;

afterEach(() => {
  act(() => root?.unmount());
  container?.remove();
  root = null;
  container = null;
});

function render(element: ReactElement) {
  container = document.createElement('div');
  document.body.append(container);
  root = createRoot(container);
  act(() => root!.render(element));
  return container;
}

// A game state's topology: names, networks as lists.
const GAME = [
  { name: 'gw', networks: ['lan', 'dmz'] },
  { name: 'web', networks: ['dmz'] },
];

describe('TopologyDiagram', () => {
  it('says the whole diagram in its label when it lists nothing', () => {
    const view = render(<TopologyDiagram templates={[{ name: 'kali', networks: 'lan, dmz' }]} />);
    expect(view.querySelector('svg')?.getAttribute('aria-label')).toBe(
      'Topology: Router kali on lan, dmz.',
    );
    expect(view.querySelector('ul')).toBeNull();
  });

  it('lists each machine with its networks and each network with its machines, for everyone', () => {
    const view = render(<TopologyDiagram templates={GAME} title="Machines and networks" listed />);
    const items = (name: string) =>
      [...view.querySelectorAll(`ul[aria-label="${name}"] li`)].map((li) => li.textContent);
    expect(items('Machines')).toEqual(['Router gw on lan, dmz', 'Machine web on dmz']);
    expect(items('Networks')).toEqual(['Network lan: gw', 'Network dmz: gw, web']);
    // The label then counts and points to the lists instead of repeating them.
    expect(view.querySelector('svg')?.getAttribute('aria-label')).toBe(
      'Machines and networks: 2 machines on 2 networks, listed below.',
    );
    expect(
      [...view.querySelectorAll('[data-machine]')].map((g) => g.getAttribute('data-machine')),
    ).toEqual(['gw', 'web']);
  });

  it('can be scrolled by keyboard: its box takes focus and has a name', () => {
    const view = render(<TopologyDiagram templates={GAME} />);
    const box = view.querySelector('.tp-topology-scroll');
    expect(box?.getAttribute('tabindex')).toBe('0');
    expect(box?.getAttribute('aria-label')).toBe('Topology diagram');
  });
});
