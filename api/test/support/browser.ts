import fs from 'node:fs';
import { type Browser, chromium, type Page } from 'playwright-core';

/** Debian's chromium package (`apt-get install chromium`; .ci/run installs it). */
export const CHROMIUM_PATH = '/usr/bin/chromium';

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/**
 * Whether browser tests can run: chromium missing means skipped with a printed reason, unless
 * REQUIRE_SERVICES=1, where it fails (as for PostgreSQL and Redis).
 */
export function chromiumAvailable(): boolean {
  if (fs.existsSync(CHROMIUM_PATH)) return true;
  const message = `chromium is not installed at ${CHROMIUM_PATH}`;
  if (process.env.REQUIRE_SERVICES === '1') throw new Error(`${message} and REQUIRE_SERVICES=1`);
  console.warn(`[skip] ${message}: browser tests are skipped (apt-get install chromium)`);
  return false;
}

/** Playwright driving the system chromium, headless. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM_PATH, headless: true, args: ARGS });
}

/** Where the browser tests keep the screenshots the README and docs/web.md show. */
const SCREENSHOTS = new URL('../../../docs/screenshots/', import.meta.url);

/** Saves what the page shows as `docs/screenshots/<name>.png` (look at it before calling a page done). */
export async function saveScreenshot(
  page: Page,
  name: string,
  options: { fullPage?: boolean } = {},
): Promise<void> {
  fs.mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`${name}.png`, SCREENSHOTS).pathname, ...options });
}
