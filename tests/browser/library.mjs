// End-to-end test of the web page's scan library in headless Chromium:
// a recognition is kept, a square is corrected in the editor and saved, the
// Library card shows it corrected, finds it, opens it back in the editor.
//
//   BOARDSCAN_URL=http://127.0.0.1:18089 node tests/browser/library.mjs
//
// Needs a running `boardscan serve` with a library (`.ci/browser-test.sh`
// starts one on a temporary file). Every check is reported; the exit code is
// 1 if any failed.

import { check, failures, launchChromium } from './harness.mjs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BASE = (process.env.BOARDSCAN_URL || 'http://127.0.0.1:18089').replace(/\/$/, '');
const IMAGE = process.env.LIBRARY_IMAGE || join(ROOT, 'testdata', 'boards', '03-pychess-merida-chesscom-green-white.png');
const TIMEOUT = Number(process.env.E2E_TIMEOUT_MS || 60000);


async function main() {
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    page.setDefaultTimeout(TIMEOUT);
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(`${BASE}/`);
    await page.locator('[data-testid="library"]').waitFor({ state: 'visible' });
    check(true, 'the Library card is shown when the service keeps scans');

    // The e2e test before this one may leave searches finishing on the same server.
    for (let k = 0; k < 600; k++) {
      const ready = await (await fetch(`${BASE}/api/v1/health/ready`)).json();
      if (ready.jobsAdmitted === 0) break;
      await page.waitForTimeout(100);
    }
    const recognized = page.waitForResponse((r) => r.url().endsWith('/api/v1/recognize'));
    await page.setInputFiles('#file-input', IMAGE);
    const body = await (await recognized).json();
    const scanId = body.boards && body.boards[0] && body.boards[0].scanId;
    check(Number.isInteger(scanId), 'the recognition is kept (scanId in the answer)', JSON.stringify(body).slice(0, 200));
    await page.waitForFunction(() => document.querySelector('#fen').value.includes(' '));
    await page.locator('[data-testid="save-correction"]').waitFor({ state: 'visible' });
    check(true, '"Save correction" is offered for a kept board');
    await page.locator('[data-testid="library-item"]').first().waitFor();
    const thumb = page.locator(`[data-testid="library-item"][data-scan="${scanId}"] img`);
    await thumb.scrollIntoViewIfNeeded();
    // The thumbnail is lazy: wait for it to finish loading (or fail), then check it.
    const loaded = await thumb.evaluate((img) => (img.complete ? img.naturalWidth > 0 : new Promise((done) => {
      img.addEventListener('load', () => done(img.naturalWidth > 0), { once: true });
      img.addEventListener('error', () => done(false), { once: true });
    })));
    check(loaded, 'its thumbnail loads');

    // Correct: empty a2 with the palette, Black to move, and save.
    await page.click('[data-square="a2"]');
    await page.locator('#palette').waitFor({ state: 'visible' });
    await page.click('#palette [data-piece=""]');
    await page.check('#stm-b');
    const corrected = await page.locator('#fen').inputValue();
    const saved = page.waitForResponse((r) => r.url().includes(`/api/v1/scans/${scanId}/boards/0/corrections`));
    await page.click('[data-testid="save-correction"]');
    const answer = await saved;
    const board = await answer.json();
    check(answer.status() === 200 && board.corrected === true, 'the correction is saved', `${answer.status()} ${JSON.stringify(board).slice(0, 200)}`);
    check(board.fen === corrected, 'the library holds the editor\'s FEN', `${board.fen} vs ${corrected}`);
    await page.locator(`[data-testid="library-item"][data-scan="${scanId}"] [data-testid="library-corrected"]`).waitFor();
    check(true, 'the Library marks the board corrected');

    // Search: corrected only, by placement.
    await page.fill('[data-testid="library-fen"]', corrected.split(' ')[0]);
    await page.click('[data-testid="library-search"]');
    await page.waitForFunction((fen) => {
      const items = document.querySelectorAll('[data-testid="library-item-fen"]');
      return items.length === 1 && items[0].textContent === fen;
    }, corrected);
    check(true, 'searching by placement finds exactly that board');
    const pgn = await page.locator('[data-testid="library-export-pgn"]').getAttribute('href');
    const exported = await (await page.request.get(`${BASE}${pgn}`)).text();
    check(exported.includes(`[FEN "${corrected}"]`), 'the PGN export of the search holds the corrected FEN', exported.slice(0, 300));

    // Open it back in the editor after a fresh start.
    await page.click('#manual');
    await page.click(`[data-testid="library-item"][data-scan="${scanId}"] [data-testid="library-open"]`);
    await page.waitForFunction((fen) => document.querySelector('#fen').value === fen, corrected);
    check(true, 'Open in editor puts the corrected position in the editor');
    check(pageErrors.length === 0, 'no script errors', pageErrors.join('; '));
  } finally {
    await browser.close();
  }
  if (failures.length) {
    console.log(`\n${failures.length} check(s) failed`);
    process.exit(1);
  }
  console.log('\nall library checks passed');
}

main().catch((e) => { console.error(e); process.exit(1); });
