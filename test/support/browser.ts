/**
 * The browser tier's shared pieces: Debian's Chromium through playwright-core (never a
 * downloaded browser; its headless shell where installed, below), the console built once,
 * sign-in with a real API key, and the checks every console test uses. The local cloud is the
 * tier's globalSetup.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { baseUrl, call, eventually } from './api';

export const repoRoot = join(import.meta.dirname, '..', '..');
/** Where the browser tier saves its screenshots (docs/console.md shows them). */
export const shotsDir = join(repoRoot, 'docs', 'console');

/**
 * Debian's headless shell (`chromium-headless-shell`, the same Blink and V8 as `chromium`
 * without the full browser's UI layers; what Playwright itself launches for headless tests) or,
 * where it is not installed, the full `chromium`. The tier's 50 tests on this 2-core machine,
 * back to back: the full browser took 310 CPU-seconds of Chromium and 204 s, with 178 renderer
 * processes; the headless shell 111 CPU-seconds and 107 s, with 72. `CHROMIUM_PATH` overrides.
 */
function chromiumPath(): string {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH;
  return execFileSync(
    'sh',
    ['-c', 'command -v chromium-headless-shell || command -v chromium || command -v chromium-browser'],
    { encoding: 'utf8' },
  ).trim();
}

let running: Promise<Browser> | undefined;

/**
 * The worker's Chromium, started on first use (after building the console if it is not built):
 * the browser tier's files share their worker's modules (vitest.config.ts), so one Chromium
 * serves every file a worker runs, one after another, instead of one started and stopped per
 * file. Each page has a context of its own (`newPage`), and a file closes the contexts it opened
 * when it ends (`closePages`), so nothing a file signed in to outlives it. Playwright stops the
 * browser when the worker exits. A browser that crashed or was closed is started again.
 */
export async function launchBrowser(): Promise<Browser> {
  const current = running && (await running.catch(() => undefined));
  if (current?.isConnected()) return current;
  if (!existsSync(join(repoRoot, 'console', 'dist', 'index.html'))) {
    execFileSync('npm', ['run', '--silent', 'console:build'], { cwd: repoRoot, stdio: 'inherit' });
  }
  mkdirSync(shotsDir, { recursive: true });
  running = chromium.launch({ executablePath: chromiumPath(), args: ['--no-sandbox'] });
  return running;
}

/** At the end of a file: closes every context (and so every page) it opened in the worker's browser. */
export async function closePages(browser: Browser | undefined): Promise<void> {
  await Promise.all((browser?.contexts() ?? []).map((context) => context.close()));
}

/** A page in its own context (what axe-core's AxeBuilder needs), `width` px wide. */
export async function newPage(browser: Browser, width = 1280): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  return context.newPage();
}

/** A new page signed in with `key`, at the console's default screen. */
export async function signedIn(browser: Browser, key: string, width = 1280): Promise<Page> {
  const page = await newPage(browser, width);
  await page.goto(`${baseUrl()}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
  return page;
}

/** A schema-built form field by its path id (`config.host`). */
export const field = (page: Page, path: string) => page.locator(`[id="${path}"]`);

/**
 * On the new-integration form: picks `type` (one with automatic setup) and turns automatic setup
 * off for the manual flow. The form applies a type's defaults (its config defaults, automatic
 * setup on) in an effect that runs after the next frame; a box unchecked or a field filled before
 * it runs is reset, so this waits for the box to be checked first. Under load that frame came
 * after the uncheck and the manual scripts never appeared.
 */
export async function chooseManualSetup(page: Page, type: string): Promise<void> {
  await page.getByLabel('Platform type').selectOption(type);
  const automatic = page.getByLabel('Set up the remote automatically (autoBootstrap)');
  await expect.poll(() => automatic.isChecked()).toBe(true);
  await automatic.uncheck();
}

/** Nothing wider than the viewport: no layout break. */
export async function expectNoHorizontalOverflow(page: Page): Promise<void> {
  await expect
    .poll(() => page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth'))
    .toBeLessThanOrEqual(0);
}

/** Creates an integration through the API and waits until it reaches `status`; returns its id. */
export async function createIntegrationReaching(body: unknown, status: string): Promise<number> {
  const created = await call('POST', '/integrations', { body });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const id = Number(created.body.id);
  const settled = await eventually(
    () => call('GET', `/integrations/${id}`),
    (r) => r.body.status === status,
    60_000,
  );
  expect(settled.body.status).toBe(status);
  return id;
}

export const createEnabledIntegration = (body: unknown) => createIntegrationReaching(body, 'enabled');

/** Whether this run saves screenshots (`npm run console:screenshots` sets CONSOLE_SCREENSHOTS=1). */
export const savingScreenshots = process.env.CONSOLE_SCREENSHOTS === '1';

/** Saves the whole page as docs/console/<name>.png, in a screenshot run only. */
export async function screenshot(page: Page, name: string): Promise<void> {
  if (savingScreenshots) await page.screenshot({ path: join(shotsDir, `${name}.png`), fullPage: true });
}
