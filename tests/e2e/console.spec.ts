import { expect, test, type Page } from '@playwright/test';
import { apiOf, signIn } from './support';

// A machine's console page end to end: the sim machine's VNC console through noVNC, typing into
// it, and the page noticing when the machine is stopped.

interface Vm {
  id: string;
  name: string;
  status: string;
  state: string;
}

/** How many pixels of the noVNC canvas are not black, and a digest of all of them. */
function canvasPixels(page: Page) {
  return page.evaluate(() => {
    const canvas = document.querySelector('.tp-console-screen canvas') as HTMLCanvasElement | null;
    if (!canvas || canvas.width === 0) return { lit: 0, digest: 0 };
    const data = canvas.getContext('2d')?.getImageData(0, 0, canvas.width, canvas.height).data;
    let lit = 0;
    let digest = 0;
    for (let i = 0; data && i < data.length; i += 4) {
      if ((data[i] ?? 0) + (data[i + 1] ?? 0) + (data[i + 2] ?? 0) > 60) lit++;
      digest =
        (digest * 31 + (data[i] ?? 0) + (data[i + 1] ?? 0) * 7 + (data[i + 2] ?? 0) * 13) | 0;
    }
    return { lit, digest };
  });
}

test('an author opens a running machine’s console, types into it, and sees it stop', async ({
  page,
}) => {
  test.setTimeout(120_000);
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';

  const api = await apiOf(page);

  // Link the stock linux-server and deploy its machine (the linked template uses the stock disks).
  const stock = await api<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  expect(parent).toBeDefined();
  const template = await api<{ id: string; name: string }>('POST', 'template', {
    templateId: parent?.id,
    workspaceId,
  });
  await api('POST', `vm-template/${template.id}`, {});
  let vm: Vm | null = null;
  await expect
    .poll(
      async () => {
        vm = await api<Vm>('GET', `vm-template/${template.id}`);
        if (vm.status === 'deployed' && vm.state === 'off' && !('task' in vm && vm.task))
          await api('PUT', 'vm', { id: vm.id, type: 'start' });
        return `${vm.status}/${vm.state}`;
      },
      { timeout: 60_000, intervals: [500] },
    )
    .toBe('deployed/running');
  const machine = vm as unknown as Vm;
  const name = machine.name.split('#')[0] ?? '';

  // The console page, outside the shell: the toolbar names the machine and says it is connected.
  await page.goto(`/console/${machine.id}/${name}?f=0&s=${workspaceId}&v=${name}`);
  await expect(page).toHaveTitle(name);
  const toolbar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(toolbar.getByRole('heading', { name })).toBeVisible();
  await expect(toolbar.getByRole('status')).toHaveText('connected', { timeout: 20_000 });
  await expect(page.getByRole('navigation', { name: 'Main' })).toHaveCount(0);
  const canvas = page.locator('.tp-console-screen canvas');
  await expect(canvas).toBeVisible();
  await expect.poll(async () => (await canvasPixels(page)).lit).toBeGreaterThan(5_000);

  // The NIC switcher lists the machine's networks.
  await expect(toolbar.getByRole('combobox', { name: 'NIC 1' })).toBeVisible();

  // Typing reaches the machine: its screen changes and keeps the new text.
  const before = await canvasPixels(page);
  await canvas.click();
  await page.keyboard.type('hostname');
  await page.keyboard.press('Enter');
  await expect.poll(async () => (await canvasPixels(page)).digest).not.toBe(before.digest);
  await expect.poll(async () => (await canvasPixels(page)).lit).toBeGreaterThan(before.lit);
  await page.screenshot({ path: test.info().outputPath('console-connected.png') });

  // Paste goes in as typed keys as well.
  const typed = await canvasPixels(page);
  await toolbar.getByLabel('Text to paste').fill('echo pasted');
  await toolbar.getByRole('button', { name: 'Paste' }).click();
  await expect.poll(async () => (await canvasPixels(page)).digest).not.toBe(typed.digest);

  // Stopping the machine ends the console: the page says so and offers Retry.
  await api('PUT', 'vm', { id: machine.id, type: 'stop' });
  await expect(page.getByText('The machine is not running.')).toBeVisible({ timeout: 20_000 });
  await expect(page.getByRole('button', { name: 'Retry' })).toBeVisible();
  await expect(toolbar.getByRole('status')).toHaveText('not running');
  await page.screenshot({ path: test.info().outputPath('console-stopped.png') });
});
