// End-to-end test of the web page's Whole game card in headless Chromium:
// a PGN is pasted and analysed through the stream, the move list shows the
// grades, a click, the keys and the graph go to positions, and the annotated
// PGN can be downloaded; a recording of a game (an animated GIF) opened in
// the card is read into moves and analysed.
//
//   BOARDSCAN_URL=http://127.0.0.1:18089 node tests/browser/game.mjs
//
// Needs a running `boardscan serve` (`.ci/browser-test.sh` starts one).
// Every check is reported; the exit code is 1 if any failed.

import { check, failures, launchChromium } from './harness.mjs';
import { readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BASE = (process.env.BOARDSCAN_URL || 'http://127.0.0.1:18089').replace(/\/$/, '');
const TIMEOUT = Number(process.env.E2E_TIMEOUT_MS || 120000);
const PGN = readFileSync(join(ROOT, 'testdata', 'games', 'scholar.pgn'), 'utf8');

const comment = (page) => page.locator('#game-comment').innerText();

async function main() {
  const browser = await launchChromium();
  try {
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 1400 } })).newPage();
    page.setDefaultTimeout(TIMEOUT);
    const pageErrors = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    await page.goto(`${BASE}/`);
    await page.locator('[data-testid="game-pgn"]').fill(PGN);
    await page.locator('[data-testid="game-analyse"]').click();
    await page.waitForFunction(() => /^Done/.test(document.querySelector('#game-status').textContent));
    const moves = await page.locator('[data-testid="game-move"]').allInnerTexts();
    check(moves.length === 7, 'the move list has the seven moves', moves.join(' '));
    check(moves[5] === 'Nf6??', 'the blunder is marked ??', moves[5]);
    check(/C23 Bishop's Opening/.test(await page.locator('#game-summary').innerText()),
      'the summary names the opening', await page.locator('#game-summary').innerText());
    await page.locator('[data-testid="game-move"][data-ply="6"]').click();
    check(/^3\.\.\. Nf6: Blunder/.test(await comment(page)), 'clicking a move goes to it', await comment(page));
    await page.keyboard.press('ArrowLeft');
    check(/^3\. Qh5/.test(await comment(page)), '← goes back a move', await comment(page));
    await page.keyboard.press('End');
    check(/^4\. Qxf7#/.test(await comment(page)), 'End goes to the last move', await comment(page));
    const box = await page.locator('#game-graph').boundingBox();
    await page.mouse.click(box.x + 2, box.y + box.height / 2);
    check(await comment(page) === '', 'clicking the graph\'s start goes to the start position', await comment(page));
    check(await page.locator('#game-board [data-square]').count() === 64, 'the card\'s board has 64 squares');
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#game-download').click()]);
    const text = readFileSync(await download.path(), 'utf8');
    check(text.includes('Nf6??') && text.includes('[%eval #1]'), 'the annotated PGN downloads', text.slice(0, 120));

    // A recording: the GIF of testdata/recordings (26 plies, from Black's side).
    const labels = readFileSync(join(ROOT, 'testdata', 'recordings', 'labels.csv'), 'utf8');
    const truth = labels.split('\n').find((l) => l.startsWith('black.gif,')).split(',')[2].split(' ');
    await page.locator('[data-testid="game-file"]').setInputFiles(join(ROOT, 'testdata', 'recordings', 'black.gif'));
    await page.waitForFunction((n) => /^Done/.test(document.querySelector('#game-status').textContent)
      && document.querySelectorAll('[data-testid="game-move"]').length === n, truth.length);
    const read = await page.locator('[data-testid="game-move"]').allInnerTexts();
    check(read.length === truth.length, 'the recording\'s moves are read and analysed', read.join(' '));
    check(/^h3\b/.test(read[0]) && /^e6\b/.test(read[1]), 'they start 1. h3 e6 as recorded', read.slice(0, 4).join(' '));
    check(/\[Event/.test(await page.locator('[data-testid="game-pgn"]').inputValue()),
      'the PGN box holds the recording\'s game');
    check(pageErrors.length === 0, 'no script errors', pageErrors.join('; '));
  } finally {
    await browser.close();
  }
  if (failures.length) {
    console.log(`\n${failures.length} check(s) failed`);
    process.exit(1);
  }
  console.log('\nall game card checks passed');
}

main().catch((e) => { console.error(e); process.exit(1); });
