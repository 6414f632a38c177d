// What the browser scripts share: headless Chromium and the check log.

import { chromium } from 'playwright-core';

// Every failed check's description; a script exits 1 when any is here.
export const failures = [];

// Prints one check and records a failure; returns `ok`.
export function check(ok, what, saw) {
  console.log(`${ok ? 'ok  ' : 'FAIL'}  ${what}${saw !== undefined ? `\n        saw: ${saw}` : ''}`);
  if (!ok) failures.push(what);
  return ok;
}

// The system Chromium (or CHROMIUM), headless, with nothing fetched from elsewhere.
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}
