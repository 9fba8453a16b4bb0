import AxeBuilder from '@axe-core/playwright';
import { expect, test, type Page } from '@playwright/test';
import { apiOf, endGame, signIn, startGame } from './support';

// The play page's topology (issue 29): a player sees the game's machines and the networks they
// share, drawn and listed, before the start and once the machines run; a hidden template shows
// nowhere. At 1280 px the diagram is read at a glance; at 390 px it scrolls inside its box, which
// stays within the screen.

type Template = Record<string, unknown> & { id: string; name: string };

/** The Topology fold of the play page and what it lists. */
function topologyOf(page: Page) {
  const region = page.getByRole('region', { name: 'Topology' });
  return {
    region,
    machines: region.getByRole('list', { name: 'Machines' }).getByRole('listitem'),
    networks: region.getByRole('list', { name: 'Networks' }).getByRole('listitem'),
    diagram: region.getByRole('img', { name: /^Machines and networks: 3 machines on 2 networks/ }),
  };
}

const MACHINES = ['Router gw on lan, dmz', 'Machine kali on lan', 'Machine web on dmz'];
const NETWORKS = ['Network lan: gw, kali', 'Network dmz: gw, web'];

test('a player sees the machines of the game and the networks they share, never a hidden one', async ({
  page,
  browser,
}) => {
  test.setTimeout(240_000);

  // The author: three machines on two networks, one of them forwarding, and a hidden grader.
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  const author = await apiOf(page);
  const stock = await author<Template[]>('GET', 'templates?term=linux-server');
  const parent = stock.find((t) => t.name === 'linux-server');
  expect(parent).toBeDefined();
  const lab = [
    { name: 'gw', networks: 'lan, dmz', isHidden: false },
    { name: 'kali', networks: 'lan', isHidden: false },
    { name: 'web', networks: 'dmz', isHidden: false },
    { name: 'grader', networks: 'lan mgmt', isHidden: true },
  ];
  for (const machine of lab) {
    const made = await author<Template>('POST', 'template', {
      templateId: parent?.id,
      workspaceId,
    });
    await author('PUT', 'template', {
      id: made.id,
      description: made.description,
      iso: made.iso,
      variant: made.variant,
      replicas: 1,
      guestinfo: '',
      ...machine,
    });
  }
  const workspace = await author<Record<string, unknown>>('GET', `workspace/${workspaceId}`);
  await author('PUT', 'workspace', {
    ...workspace,
    name: 'Net Lab',
    audience: 'everyone',
    durationMinutes: 60,
  });

  // Before the start, the player's play page shows what the game will have.
  const playerContext = await browser.newContext({ viewport: { width: 1280, height: 1000 } });
  const player = await playerContext.newPage();
  await signIn(player, 'player');
  await player.goto(`/mojo/${workspaceId}`);
  const topology = topologyOf(player);
  await expect(topology.machines).toHaveText(MACHINES, { timeout: 30_000 });
  await expect(topology.networks).toHaveText(NETWORKS);
  await expect(topology.diagram).toBeVisible();
  await expect(topology.region).not.toContainText(/grader|mgmt/);

  // Started: the machines the player runs, the same networks.
  await startGame(player, workspaceId);
  const resources = player.getByRole('region', { name: 'Resources' });
  await expect(resources.getByText(/^web/)).toBeVisible({ timeout: 30_000 });
  await expect(topology.machines).toHaveText(MACHINES);
  await expect(topology.networks).toHaveText(NETWORKS);
  await expect(topology.region).not.toContainText(/grader|mgmt/);
  // The diagram draws each machine and each network, the grader's neither.
  const svg = topology.diagram;
  await expect(svg.locator('[data-machine]')).toHaveCount(3);
  await expect(svg.locator('[data-network]')).toHaveCount(2);
  await expect(svg.locator('[data-network="mgmt"], [data-machine="grader"]')).toHaveCount(0);
  const box = (await svg.boundingBox())!;
  expect(box.width).toBeLessThanOrEqual(1280);
  await player.screenshot({ path: test.info().outputPath('topology-1280.png'), fullPage: true });
  // Nothing serious for axe in the fold, open or folded.
  const scan = async () => {
    const { violations } = await new AxeBuilder({ page: player })
      .include('.tp-game-topology')
      .analyze();
    return violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  };
  expect(await scan()).toEqual([]);

  // Folded by the player, then open again.
  const toggle = topology.region.locator('summary');
  await toggle.click();
  await expect(svg).toBeHidden();
  expect(await scan()).toEqual([]);
  await toggle.press('Enter');
  await expect(svg).toBeVisible();

  // On a phone the diagram scrolls inside its box; the page does not scroll sideways.
  await player.setViewportSize({ width: 390, height: 844 });
  await expect(svg).toBeVisible();
  const scroller = topology.region.locator('.tp-topology-scroll');
  const overflow = await scroller.evaluate((el) => ({
    inner: el.scrollWidth,
    outer: el.clientWidth,
    right: el.getBoundingClientRect().right,
  }));
  expect(overflow.inner).toBeGreaterThan(overflow.outer);
  expect(overflow.right).toBeLessThanOrEqual(390);
  // Nothing of the fold sticks out of it, which would widen the page.
  const fold = await topology.region.evaluate((el) => ({
    inner: el.scrollWidth,
    outer: el.clientWidth,
    right: el.getBoundingClientRect().right,
  }));
  expect(fold.inner).toBeLessThanOrEqual(fold.outer);
  expect(fold.right).toBeLessThanOrEqual(390);
  // Scrolled by keyboard as well: the box takes focus.
  await scroller.focus();
  await player.keyboard.press('ArrowRight');
  await expect.poll(() => scroller.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);
  expect(await scan()).toEqual([]);
  await player.screenshot({ path: test.info().outputPath('topology-390.png') });
  await endGame(player);
  await playerContext.close();
});
