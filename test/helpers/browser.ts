/**
 * A real headless Chromium (the system's package, never a downloaded build) driven by
 * playwright-core, for the web console's tests. Every page records what the browser reports as
 * an error (a script failure, a content security policy violation), and tests check none came.
 * Screenshots go to test-artifacts/console/, which git ignores.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';
import { repositoryRoot } from './cli.js';
import { WAIT_DEADLINE_MS } from './wait.js';

export const CHROMIUM_PATH = '/usr/bin/chromium';
export const SCREENSHOT_DIRECTORY = join(repositoryRoot, 'test-artifacts', 'console');

export interface ConsoleBrowser {
  browser: Browser;
  context: BrowserContext;
  /** Opens a tab that records the browser's errors into `errors`. */
  newPage(): Promise<Page>;
  /** Script errors, failed loads and policy violations the browser reported, in order. */
  errors: string[];
}

export async function openBrowser(t: Test, options: { ignoreHTTPSErrors?: boolean } = {}): Promise<ConsoleBrowser> {
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, timeout: WAIT_DEADLINE_MS });
  t.teardown(() => browser.close());
  const context = await browser.newContext({ ignoreHTTPSErrors: options.ignoreHTTPSErrors ?? false, viewport: { width: 1280, height: 900 } });
  context.setDefaultTimeout(WAIT_DEADLINE_MS);
  const errors: string[] = [];
  const newPage = async () => {
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of 40[0-9]/.test(message.text())) errors.push(`console: ${message.text()}`);
    });
    // The API's refusals are part of what the tests check; a page's own files (the document,
    // scripts, styles, the icon) must always load.
    page.on('response', (response) => {
      const kind = response.request().resourceType();
      if (response.status() >= 400 && kind !== 'fetch' && kind !== 'xhr') errors.push(`failed load: ${response.status()} ${kind} ${response.url()}`);
    });
    return page;
  };
  return { browser, context, newPage, errors };
}

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOT_DIRECTORY, { recursive: true });
  const path = join(SCREENSHOT_DIRECTORY, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** Opens the console at `url` and signs in with the login form. */
export async function signIn(page: Page, url: string, login = 'admin', password = 'changeit'): Promise<void> {
  await page.goto(`${url}/web`);
  await page.fill('input[name=login]', login);
  await page.fill('input[name=password]', password);
  await page.click('button[type=submit]');
  await page.waitForSelector('header .user');
}

/** A new tab of `chrome`, signed in to the console at `url` as the default admin. */
export async function signedInPage(chrome: ConsoleBrowser, url: string): Promise<Page> {
  const page = await chrome.newPage();
  await signIn(page, url);
  return page;
}
