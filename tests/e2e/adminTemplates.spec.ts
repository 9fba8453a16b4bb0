import { expect, test } from '@playwright/test';
import { apiOf, signIn } from './support';

// The admin Template Manager (issue 17): an admin opens admin/templates?term=<workspace id>, sees
// that workspace's templates, is told what is wrong with a detail before saving it, saves the fix,
// then clones the template and publishes the clone.

interface Summary {
  id: string;
  name: string;
  isPublished?: boolean;
}

test('an admin edits, clones and publishes a workspace template', async ({ page }) => {
  await signIn(page, 'admin');
  const api = await apiOf(page);
  const suffix = Date.now().toString(36);
  const ws = await api<{ id: string }>('POST', 'workspace', { name: `Tpl lab ${suffix}` });
  const [stock] = await api<Summary[]>('GET', 'templates?term=linux-server&filter=published');
  const linked = await api<Summary>('POST', 'template', {
    templateId: stock!.id,
    workspaceId: ws.id,
  });

  await page.goto(`/admin/templates?term=${ws.id}`);
  const list = page.getByRole('list', { name: 'Templates' });
  await expect(page.getByLabel('term')).toHaveValue(ws.id);
  await expect(list.getByRole('button')).toHaveCount(1);
  await list.getByRole('button', { name: linked.name }).click();

  const form = page.getByRole('form', { name: `Template ${linked.name}` });
  const detail = form.getByLabel('Detail (VmTemplate JSON)');
  const save = form.getByRole('button', { name: 'Save' });
  await detail.fill(JSON.stringify({ Cpu: 'two', Ram: 2, Disks: [{ Path: '[ds] x/a.vmdk' }] }));
  await expect(form.getByRole('alert')).toHaveText(
    'Cpu must be sockets x cores, such as "1x2", not "two"',
  );
  await expect(detail).toHaveAttribute('aria-invalid', 'true');
  await expect(save).toBeDisabled();

  const fixed = { Cpu: '1x2', Ram: 2, Disks: [{ Path: '[ds] x/a.vmdk', Size: 4 }] };
  await detail.fill(JSON.stringify(fixed));
  await expect(form.getByRole('alert')).toHaveText('');
  await save.click();
  await expect(save).toBeDisabled();
  await expect
    .poll(async () => {
      const saved = await api<{ detail: string }>('GET', `template-detail/${linked.id}`);
      return JSON.parse(saved.detail) as unknown;
    })
    .toMatchObject(fixed);

  // Clone: the clone opens in the form, unpublished; publishing it is saved.
  await page.getByRole('button', { name: 'Clone' }).click();
  const cloneName = `${linked.name}-CLONE`;
  const cloneForm = page.getByRole('form', { name: `Template ${cloneName}` });
  const published = cloneForm.getByLabel(/^Published/);
  await expect(published).not.toBeChecked();
  await published.check();
  await cloneForm.getByRole('button', { name: 'Save' }).click();
  await expect(list.getByRole('listitem').filter({ hasText: cloneName })).toContainText(
    'published',
  );
  const clones = await api<Summary[]>('GET', `templates?term=${encodeURIComponent(cloneName)}`);
  expect(clones.map((c) => [c.name, c.isPublished])).toEqual([[cloneName, true]]);

  // The specs share one server: a published linux-server-CLONE would stand beside the stock
  // linux-server in every later spec's list of templates to add.
  await api('DELETE', `template/${clones[0]!.id}`);
  const left = await api<Summary[]>('GET', 'templates?term=linux-server&filter=published');
  expect(left.map((t) => t.name)).toEqual(['linux-server']);
});
