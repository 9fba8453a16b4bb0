import { expect, test, type Page } from '@playwright/test';
import { apiOf, signIn } from './support';

// Files into a machine from its console page: a file dropped on the sim machine's screen is
// sent with its progress and lands in the machine's uploads folder, the toolbar's button picks
// one, and a file over the limit is refused before it is sent.

interface Vm {
  id: string;
  name: string;
  status: string;
  state: string;
  task?: unknown;
}

/** Signed in as the creator: a running builder machine of the stock linux-server. */
async function runningMachine(page: Page): Promise<{ machine: Vm; workspaceId: string }> {
  await signIn(page, 'creator');
  await page.getByRole('button', { name: 'New Workspace' }).click();
  await page.waitForURL(/\/topo\/[0-9a-f]{32}\/settings$/);
  const workspaceId = /\/topo\/([0-9a-f]{32})\//.exec(page.url())?.[1] ?? '';
  const api = await apiOf(page);
  const stock = await api<Array<{ id: string; name: string }>>(
    'GET',
    'templates?term=linux-server',
  );
  const parent = stock.find((t) => t.name === 'linux-server');
  const template = await api<{ id: string }>('POST', 'template', {
    templateId: parent?.id,
    workspaceId,
  });
  await api('POST', `vm-template/${template.id}`, {});
  let vm: Vm | null = null;
  await expect
    .poll(
      async () => {
        vm = await api<Vm>('GET', `vm-template/${template.id}`);
        if (vm.status === 'deployed' && vm.state === 'off' && !vm.task)
          await api('PUT', 'vm', { id: vm.id, type: 'start' });
        return `${vm.status}/${vm.state}`;
      },
      { timeout: 60_000, intervals: [500] },
    )
    .toBe('deployed/running');
  return { machine: vm as unknown as Vm, workspaceId };
}

test('a file dropped on the console lands in the machine, with its progress', async ({ page }) => {
  const { machine, workspaceId } = await runningMachine(page);
  const name = machine.name.split('#')[0] ?? '';
  await page.goto(`/console/${machine.id}/${name}?f=0&s=${workspaceId}&v=${name}`);
  const toolbar = page.getByRole('banner', { name: 'Console toolbar' });
  await expect(toolbar.getByRole('status').first()).toHaveText('connected');
  const upload = toolbar.getByRole('button', { name: 'Upload file' });
  await expect(upload).toBeEnabled();

  // Dropped on the screen: the page shows it being sent, then where it went.
  const screen = page.locator('.tp-console-main');
  const files = page.getByRole('region', { name: 'Files into the machine' });
  // The page's requests are slowed so that the progress can be seen.
  await page.route('**/api/vm/*/files', async (route) => {
    if (route.request().method() === 'POST') await new Promise((r) => setTimeout(r, 1_500));
    await route.continue();
  });
  const dropped = await page.evaluateHandle(() => {
    const transfer = new DataTransfer();
    transfer.items.add(new File(['echo dropped\n'], 'dropped notes.sh', { type: 'text/plain' }));
    return transfer;
  });
  await screen.dispatchEvent('dragover', { dataTransfer: dropped });
  await screen.dispatchEvent('drop', { dataTransfer: dropped });
  await expect(files.getByText(/Sending dropped notes\.sh… \d+%/)).toBeVisible();
  await expect(files.getByRole('progressbar', { name: 'dropped notes.sh sent' })).toBeVisible();
  await expect(files.getByText('dropped notes.sh is in the machine:')).toBeVisible();
  await expect(files.locator('code')).toHaveText('/root/uploads/dropped_notes.sh');
  await page.screenshot({ path: test.info().outputPath('console-file-dropped.png') });

  // Picked with the toolbar's button; one over the limit is refused unsent.
  await page.unroute('**/api/vm/*/files');
  const requests: string[] = [];
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/files')) requests.push(r.url());
  });
  await page.getByLabel('File to put into the machine').setInputFiles([
    {
      name: 'too-big.bin',
      mimeType: 'application/octet-stream',
      buffer: Buffer.alloc(1024 * 1024 + 1),
    },
    { name: 'picked.txt', mimeType: 'text/plain', buffer: Buffer.from('picked\n') },
  ]);
  await expect(files.getByRole('alert')).toContainText(
    'too-big.bin was not put into the machine. The file is larger than 1 MiB',
  );
  await expect(files.getByText('picked.txt is in the machine:')).toBeVisible();
  expect(requests).toHaveLength(1);
});
