// End-to-end test of the boardscan web page in headless Chromium.
//
//   BOARDSCAN_URL=http://127.0.0.1:18089 node tests/browser/e2e.mjs
//
// Needs a running `boardscan serve` at BOARDSCAN_URL (the CI script `.ci/browser-test.sh`
// starts one) and Chromium at /usr/bin/chromium (or CHROMIUM). Set E2E_SKIP_ANALYSIS=1 to
// leave out the analysis step while the analysis endpoint does not exist yet; it is
// otherwise required, and a 404 from it fails the test.
//
// Every check is reported; the exit code is 1 if any failed.

import { chromium } from 'playwright-core';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BASE = (process.env.BOARDSCAN_URL || 'http://127.0.0.1:18089').replace(/\/$/, '');
const IMAGE = 'boards/01-pychess-cburnett-lichess-brown-white.png';
const SKIP_ANALYSIS = process.env.E2E_SKIP_ANALYSIS === '1';
const TIMEOUT = Number(process.env.E2E_TIMEOUT_MS || 60000);

const failures = [];
function check(ok, what, saw) {
  console.log(`${ok ? 'ok  ' : 'FAIL'}  ${what}${saw !== undefined ? `\n        saw: ${saw}` : ''}`);
  if (!ok) failures.push(what);
  return ok;
}
function note(text) { console.log(`      ${text}`); }

function expectedBoardFen() {
  const csv = readFileSync(join(ROOT, 'testdata', 'boards.csv'), 'utf8').split(/\r?\n/);
  const header = csv[0].split(',');
  const fileCol = header.indexOf('file'), fenCol = header.indexOf('fen');
  for (const line of csv.slice(1)) {
    const cols = line.split(',');
    if (cols[fileCol] === IMAGE) return cols[fenCol].split(' ')[0];
  }
  throw new Error(`${IMAGE} is not in testdata/boards.csv`);
}

// Board FEN with one square changed, computed independently of the page's code.
function withSquare(board, square, piece) {
  const rows = board.split('/').map((r) => r.replace(/[1-8]/g, (n) => '.'.repeat(Number(n))).split(''));
  rows[8 - Number(square[1])]['abcdefgh'.indexOf(square[0])] = piece || '.';
  return rows.map((r) => r.join('').replace(/\.+/g, (m) => String(m.length))).join('/');
}

const fenValue = (page) => page.locator('#fen').inputValue();

async function main() {
  const expected = expectedBoardFen();
  console.log(`boardscan e2e: ${BASE}, image testdata/${IMAGE}\n      expected board: ${expected}`);

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  const tmp = mkdtempSync(join(tmpdir(), 'boardscan-e2e-'));
  try {
    // A phone-sized screen: the page must work there.
    const context = await browser.newContext({ viewport: { width: 390, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(TIMEOUT);
    const pageErrors = [], consoleErrors = [], foreign = [];
    page.on('pageerror', (e) => pageErrors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') consoleErrors.push(m.text()); });
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith(BASE) && !url.startsWith('data:') && !url.startsWith('blob:')) foreign.push(url);
    });

    // Page and assets.
    const res = await page.goto(`${BASE}/`);
    check(res && res.ok(), 'GET / answers 200', res && res.status());
    await page.waitForFunction(() => document.querySelectorAll('#palette-grid .pal').length === 13);
    check(true, 'page script ran (piece palette built)');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    check(overflow <= 390, 'no horizontal scrolling at 390 px wide', `scrollWidth ${overflow}`);

    // Error path: a file that is not an image.
    const textFile = join(tmp, 'not-an-image.txt');
    writeFileSync(textFile, 'this is not a picture of a chessboard\n');
    await page.setInputFiles('#file-input', textFile);
    await page.locator('#error').waitFor({ state: 'visible' });
    const errorText = (await page.locator('#error').innerText()).trim();
    check(errorText.length > 0 && /image|png|jpeg/i.test(errorText), 'a non-image upload shows the server\'s error message', errorText);

    // Recognition.
    const recognized = page.waitForResponse((r) => r.url().endsWith('/api/v1/recognize'));
    await page.setInputFiles('#file-input', join(ROOT, 'testdata', IMAGE));
    const response = await recognized;
    const body = await response.json().catch(() => null);
    check(response.status() === 200, 'POST /api/v1/recognize answers 200', `${response.status()} ${body && body.error ? body.error : ''}`);
    await page.waitForFunction(() => document.querySelector('#fen').value.includes(' '));
    check(await page.locator('#error').isHidden(), 'the earlier error is cleared');
    const fen1 = await fenValue(page);
    const shown = fen1.split(' ')[0];
    check(shown === expected, 'shown FEN board part equals testdata/boards.csv', fen1);
    check(/^\S+ [wb] (-|K?Q?k?q?) - 0 1$/.test(fen1), 'FEN has side, castling, "- 0 1"', fen1);
    const board0 = body && body.boards && body.boards[0];
    if (board0) {
      const unsure = board0.squares.filter((s) => s.confidence < 0.9).length;
      const marked = await page.locator('.sq.uncertain').count();
      check(marked === unsure, 'uncertain squares (confidence < 0.9) are marked', `${marked} marked, ${unsure} in the response`);
    }
    check(await page.locator('[data-square]').count() === 64, 'the board has 64 squares');
    const analysisHref = await page.locator('#lichess-analysis').getAttribute('href');
    check(analysisHref === `https://lichess.org/analysis/${fen1.replace(/ /g, '_')}`, 'lichess analysis link carries the FEN', analysisHref);

    // Flip.
    const before = await page.locator('[data-square="a1"]').boundingBox();
    const firstBefore = await page.locator('[data-square]').first().getAttribute('data-square');
    await page.click('#flip');
    const after = await page.locator('[data-square="a1"]').boundingBox();
    const firstAfter = await page.locator('[data-square]').first().getAttribute('data-square');
    check(before && after && (Math.abs(before.x - after.x) > 100 && Math.abs(before.y - after.y) > 100),
      'flipping moves a1 to the opposite corner', `a1 at (${before?.x | 0},${before?.y | 0}) then (${after?.x | 0},${after?.y | 0}); top-left ${firstBefore} then ${firstAfter}`);
    check(await fenValue(page) === fen1, 'flipping leaves the FEN alone', await fenValue(page));
    await page.click('#flip');

    // Side to move.
    await page.check('#stm-b');
    check((await fenValue(page)).split(' ')[1] === 'b', 'side to move Black shows in the FEN', await fenValue(page));
    await page.check('#stm-w');

    // Edit a square with the palette: empty e2.
    const piece = await page.locator('[data-square="e2"]').getAttribute('data-piece');
    await page.click('[data-square="e2"]');
    await page.locator('#palette').waitFor({ state: 'visible' });
    await page.click('#palette [data-piece=""]');
    const fen2 = await fenValue(page);
    check(fen2.split(' ')[0] === withSquare(shown, 'e2', null), 'emptying e2 changes the FEN accordingly', fen2);
    check(await page.locator('#palette').isHidden(), 'the palette closes after a choice');

    // And with the keyboard: the square has the focus again; type the piece back.
    await page.locator('[data-square="e2"]').press(piece ? piece : 'Delete');
    check((await fenValue(page)) === fen1, 'typing a piece letter on a square puts it back', await fenValue(page));
    await page.locator('[data-square="e2"]').press('q');
    const fen3 = await fenValue(page);
    check(fen3.split(' ')[0] === withSquare(shown, 'e2', 'q'), 'typing q puts a black queen on e2', fen3);
    await page.locator('[data-square="e2"]').press(piece ? piece : 'Delete');

    // Drop and paste reach the same upload: a dropped text file shows the error,
    // a pasted picture reads the board again and clears it.
    const give = (name, type, bytes) => page.evaluate(({ name, type, b64, how }) => {
      const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const dt = new DataTransfer();
      dt.items.add(new File([data], name, { type }));
      const event = how === 'drop'
        ? new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true })
        : new ClipboardEvent('paste', { clipboardData: dt, bubbles: true, cancelable: true });
      (how === 'drop' ? document.getElementById('drop-zone') : document).dispatchEvent(event);
    }, { name, type, b64: Buffer.from(bytes).toString('base64'), how: type.startsWith('image/') ? 'paste' : 'drop' });
    await give('dropped.txt', 'text/plain', readFileSync(textFile));
    await page.locator('#error').waitFor({ state: 'visible' });
    check(true, 'dropping a non-image file shows the error', (await page.locator('#error').innerText()).trim());
    await page.fill('#fen', '');
    await give('pasted.png', 'image/png', readFileSync(join(ROOT, 'testdata', IMAGE)));
    await page.waitForFunction(() => document.querySelector('#fen').value.includes(' '));
    check(await page.locator('#error').isHidden() && (await fenValue(page)) === fen1,
      'pasting the picture reads the same board again', await fenValue(page));

    // A PDF: every diagram of the book, each named by its page.
    const [pdfResponse] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/v1/recognize'), { timeout: TIMEOUT }),
      page.setInputFiles('#file-input', join(ROOT, 'testdata', 'pdf', 'book-typeset.pdf')),
    ]);
    check(pdfResponse.status() === 200, 'a PDF upload answers 200', pdfResponse.status());
    await page.waitForFunction(() => document.querySelectorAll('#board-pick option').length === 3);
    const picks = await page.locator('#board-pick option').allInnerTexts();
    check(picks.length === 3 && picks[0].startsWith('Page 1, diagram 1') && picks[2].startsWith('Page 2, diagram 2'),
      'the PDF\'s three diagrams are offered by page and diagram', picks.join(' | '));
    await page.selectOption('#board-pick', '2');
    check((await fenValue(page)).startsWith('r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 '),
      'picking page 2, diagram 2 shows its position', await fenValue(page));

    // Setting up by hand, and typing a FEN.
    await page.click('#manual');
    check((await fenValue(page)) === 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1',
      '"Set up a position by hand" shows the starting position', await fenValue(page));
    const typed = 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3';
    await page.fill('#fen', typed);
    await page.press('#fen', 'Enter');
    check((await page.locator('[data-square="c6"]').getAttribute('data-piece')) === 'n'
      && (await fenValue(page)) === typed.replace('- 2 3', '- 0 1'), 'a typed FEN sets the board', await fenValue(page));

    // Analysis.
    if (SKIP_ANALYSIS) {
      note('analysis step skipped (E2E_SKIP_ANALYSIS=1)');
    } else {
      const analysed = page.waitForResponse((r) => r.url().endsWith('/api/v1/analyze'), { timeout: TIMEOUT });
      await page.click('#analyse');
      const ares = await analysed;
      if (ares.status() === 404) {
        check(false, 'POST /api/v1/analyze exists (it answered 404: the analysis endpoint is not on this server yet)');
      } else {
        await Promise.race([
          page.locator('#lines li').first().waitFor({ state: 'visible' }),
          page.locator('#analysis-error').waitFor({ state: 'visible' }),
        ]);
        const err = await page.locator('#analysis-error').isVisible() ? (await page.locator('#analysis-error').innerText()) : '';
        check(!err, 'analysis answers without an error', err || `${ares.status()}`);
        const lines = (await page.locator('#lines li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
        note(`lines:\n        ${lines.join('\n        ')}`);
        check(lines.length >= 1 && /^([+\u2212]?\d+\.\d\d|#-?\d+)\s+1\.\s*\S+/.test(lines[0])
          && /\b([KQRBN][a-h]?[1-8]?x?[a-h][1-8]|[a-h](x[a-h])?[1-8](=[QRBN])?|O-O(-O)?)[+#]?/.test(lines[0]),
        'at least one line with an evaluation and SAN moves appears', lines[0]);
        const bar = await page.locator('#eval-bar').getAttribute('aria-valuenow');
        check(await page.locator('#eval-bar').isVisible() && bar !== null, 'the evaluation bar shows', bar);
      }
    }

    check(pageErrors.length === 0, 'no script errors on the page', pageErrors.join(' | ') || undefined);
    const unexpectedConsole = consoleErrors.filter((t) => !/status of (4\d\d|503)/.test(t));
    check(unexpectedConsole.length === 0, 'no unexpected console errors', unexpectedConsole.join(' | ') || undefined);
    check(foreign.length === 0, 'the page fetched nothing from other hosts', foreign.join(' ') || undefined);
  } finally {
    await browser.close();
    rmSync(tmp, { recursive: true, force: true });
  }
}

main().then(() => {
  if (failures.length) {
    console.log(`\n${failures.length} check(s) failed:\n  - ${failures.join('\n  - ')}`);
    process.exit(1);
  }
  console.log('\nall checks passed');
}, (e) => {
  console.log(`\nFAIL  the test stopped: ${e && e.stack ? e.stack : e}`);
  if (failures.length) console.log(`and these checks had failed:\n  - ${failures.join('\n  - ')}`);
  process.exit(1);
});
