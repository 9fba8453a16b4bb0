import { expect, type Page } from '@playwright/test';
import { E2E_PASSWORD } from '../../playwright.config';

/** Signs in through the embedded identity provider from the login page, as a person does. */
export async function signIn(page: Page, username: string, password = E2E_PASSWORD) {
  if (!new URL(page.url()).pathname.startsWith('/login')) await page.goto('/login');
  await page.getByRole('button', { name: /^Login with / }).click();
  await page.waitForURL(/\/identity\//);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => !/^\/(identity|oidc|login)/.test(url.pathname));
  await expect(page.getByRole('button', { name: 'Logout' })).toBeVisible();
}

export function topBar(page: Page) {
  return page.getByRole('navigation', { name: 'Main' });
}
