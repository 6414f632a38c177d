// End-to-end test of the boardscan web page in headless Chromium.
//
//   BOARDSCAN_URL=http://127.0.0.1:18089 node tests/browser/e2e.mjs
//
// Needs a running `boardscan serve` at BOARDSCAN_URL (the CI script `.ci/browser-test.sh`
// starts one) and Chromium at /usr/bin/chromium (or CHROMIUM). After the upload and
// editing steps it confirms the scanned position onto the analysis board and checks the
// live analysis (depth updates, stop), moves by click and drag, grades, back to the
// scanned position, a hint, one move against the engine, two engines side by side and
// the layout. E2E_SKIP_ANALYSIS=1 leaves the analysis board out; E2E_ALLOW_MISSING=1
// lets a server without the stream, hint, grade or play routes pass (those steps are
// then left out and said so); otherwise a missing route fails the test.
//
// Every check is reported; the exit code is 1 if any failed.

import { check, failures, launchChromium } from './harness.mjs';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const BASE = (process.env.BOARDSCAN_URL || 'http://127.0.0.1:18089').replace(/\/$/, '');
const IMAGE = 'boards/01-pychess-cburnett-lichess-brown-white.png';
const SKIP_ANALYSIS = process.env.E2E_SKIP_ANALYSIS === '1';
const ALLOW_MISSING = process.env.E2E_ALLOW_MISSING === '1';
const TIMEOUT = Number(process.env.E2E_TIMEOUT_MS || 60000);

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

// ---------- the analysis board ----------

// Which optional routes the server under test has (from its OpenAPI description).
async function serverRoutes() {
  const api = await (await fetch(`${BASE}/openapi.json`)).json();
  const paths = api.paths || {};
  const fields = (api.components && api.components.schemas && api.components.schemas.AnalyzeRequest
    && api.components.schemas.AnalyzeRequest.properties) || {};
  return {
    stream: '/api/v1/analyze/stream' in paths, engines: '/api/v1/engines' in paths,
    hint: '/api/v1/hint' in paths, grade: '/api/v1/grade' in paths, play: '/api/v1/play' in paths,
    lang: 'lang' in fields,
  };
}

// A route the issue asks for must exist, unless E2E_ALLOW_MISSING=1 (a server built
// from a branch without it); then the steps needing it are left out and said so.
function needs(routes, feature, what) {
  if (routes[feature]) return true;
  if (ALLOW_MISSING) { note(`${what}: left out, the server has no ${feature} route (E2E_ALLOW_MISSING=1)`); return false; }
  check(false, `${what}: the server has the ${feature} route`);
  return false;
}

const abFen = (page) => page.locator('#ab-fen').innerText();
const jobsAdmitted = async () => (await (await fetch(`${BASE}/api/v1/health/ready`)).json()).jobsAdmitted;

// Depth values the first engine panel shows, in order, recorded in the page.
async function recordDepths(page) {
  await page.evaluate(() => {
    window.__depths = [];
    const panel = document.getElementById('engine-panel-1');
    new MutationObserver(() => {
      const d = panel.dataset.depth;
      const lines = panel.querySelectorAll('.lines li').length;
      if (d && lines) window.__depths.push(Number(d));
    }).observe(panel, { attributes: true, attributeFilter: ['data-depth'] });
  });
}
const depths = (page) => page.evaluate(() => window.__depths.slice());

async function analysisBoard(page, context) {
  const routes = await serverRoutes();
  note(`server routes: ${JSON.stringify(routes)}`);

  // Scan the picture again and confirm: the analysis starts by itself.
  await page.setInputFiles('#file-input', join(ROOT, 'testdata', IMAGE));
  await page.waitForFunction((board) => document.querySelector('#fen').value.startsWith(board + ' '), expectedBoardFen());
  const scanned = await fenValue(page);
  await recordDepths(page);
  check(await page.locator('#analysis').isHidden(), 'the analysis board waits for the position to be confirmed');
  await page.click('#confirm');
  await page.locator('#analysis').waitFor({ state: 'visible' });
  check(await abFen(page) === scanned, 'confirming opens the scanned position on the analysis board', await abFen(page));
  check(await page.locator('#ab-board [data-square]').count() === 64, 'the analysis board has 64 squares');

  await Promise.race([
    page.locator('#lines li').first().waitFor({ state: 'visible' }),
    page.locator('#engine-panel-1 .engine-error').waitFor({ state: 'visible' }),
  ]);
  const err = await page.locator('#engine-panel-1 .engine-error').isVisible() ? await page.locator('#engine-panel-1 .engine-error').innerText() : '';
  check(!err, 'the analysis starts without an error', err || undefined);
  const lines = (await page.locator('#lines li').allInnerTexts()).map((t) => t.replace(/\s+/g, ' ').trim());
  note(`lines:\n        ${lines.join('\n        ')}`);
  check(lines.length >= 1 && /^([+\u2212]?\d+\.\d\d|#-?\d+)\s+1\.\s*\S+/.test(lines[0])
    && /\b([KQRBN][a-h]?[1-8]?x?[a-h][1-8]|[a-h](x[a-h])?[1-8](=[QRBN])?|O-O(-O)?)[+#]?/.test(lines[0]),
  'a line with an evaluation and SAN moves appears', lines[0]);

  if (needs(routes, 'stream', 'live analysis')) {
    // The lines update as the search deepens: at least two depths shown, rising.
    await page.waitForFunction(() => new Set(window.__depths).size >= 2, null, { timeout: TIMEOUT }).catch(() => {});
    const seen = await depths(page);
    check(new Set(seen).size >= 2 && seen.every((d, i) => i === 0 || d >= seen[i - 1]),
      'the lines update with each completed depth (two or more depths shown)', seen.join(','));
    const bar = await page.locator('#eval-bar').getAttribute('aria-valuenow');
    check(await page.locator('#eval-bar').isVisible() && bar !== null, 'the evaluation bar shows', bar);
    const best = await page.locator('#ab-board svg line.arrow.best').getAttribute('data-move').catch(() => null);
    const first = ((await page.locator('#lines li').first().getAttribute('data-moves')) || '').split(' ')[0].slice(0, 4);
    check(best && best === first, 'the best move is drawn as an arrow', `arrow ${best}, first line starts ${first}`);

    // Stop: no more updates, and the server's job ends.
    check(await page.locator('#stop').isVisible(), 'a stop button shows while the search runs');
    await page.click('#stop');
    const atStop = (await depths(page)).length;
    check(await page.locator('#analyse').isVisible() && await page.locator('#stop').isHidden(), 'after stop, the Analyse button is back');
    let freed = false;
    for (let k = 0; k < 40 && !freed; k++) { freed = (await jobsAdmitted()) === 0; if (!freed) await page.waitForTimeout(100); }
    check(freed, 'stopping ends the search on the server (no job admitted within 4 s)');
    await page.waitForTimeout(1500);
    const afterStop = (await depths(page)).length;
    check(afterStop === atStop, 'no updates after stop', `${atStop} updates at stop, ${afterStop} 1.5 s later`);
    check(/^Stopped/.test(await page.locator('#engine-panel-1 .engine-status').innerText()), 'the panel says the search stopped',
      await page.locator('#engine-panel-1 .engine-status').innerText());
    await page.click('#analyse');
  }

  // A move on the board by clicking two squares: e2, then e4.
  const beforeMove = await abFen(page);
  await page.click('#ab-board [data-square="e2"]');
  check(await page.locator('#ab-board [data-square="e4"].dest').count() === 1, 'picking up the e2 pawn shows e4 as a legal target');
  await page.click('#ab-board [data-square="e4"]');
  const moved = await abFen(page);
  check(moved.startsWith('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b '),
    'the move e2-e4 is made on the board (FEN follows, Black to move)', `${beforeMove} -> ${moved}`);
  check(await page.locator('#ab-board [data-square="e4"]').getAttribute('data-piece') === 'P'
    && await page.locator('#ab-board [data-square="e2"]').getAttribute('data-piece') === '', 'the pawn stands on e4 and e2 is empty');
  check((await page.locator('#move-list .mv:not(.start)').allInnerTexts()).map((t) => t.trim()).join(' ').startsWith('e4'),
    'the move list shows e4', await page.locator('#move-list').innerText());
  // The analysis follows the new position.
  await page.waitForFunction((fen) => {
    const p = document.getElementById('engine-panel-1');
    return p.dataset.fen === fen && p.querySelectorAll('.lines li').length > 0;
  }, moved, { timeout: TIMEOUT });
  const after = (await page.locator('#lines li').first().innerText()).replace(/\s+/g, ' ').trim();
  check(/^\S+ 1\u2026\s*\S+/.test(after), 'the analysis follows the move (Black\'s lines, "1…")', after);

  // The keyboard: back to the start, e2 picked up with Enter, two squares up, Enter: e4 again.
  await page.click('#back-to-scan');
  await page.focus('#ab-board [data-square="e2"]');
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('ArrowUp');
  await page.keyboard.press('Enter');
  check(await abFen(page) === moved, 'the keyboard makes the same move (Enter, arrow keys, Enter)', await abFen(page));

  // A drag: Black answers e7-e5 by dragging the pawn.
  await page.locator('#ab-board [data-square="e7"]').scrollIntoViewIfNeeded();
  const from = await page.locator('#ab-board [data-square="e7"]').boundingBox();
  const to = await page.locator('#ab-board [data-square="e5"]').boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height, { steps: 3 });
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 5 });
  await page.mouse.up();
  check((await abFen(page)).startsWith('rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w '),
    'dragging e7 to e5 makes the move', await abFen(page));

  // An illegal try changes nothing: the e1 king cannot go to e3.
  await page.click('#ab-board [data-square="e1"]');
  await page.click('#ab-board [data-square="e3"]');
  check((await abFen(page)).startsWith('rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w '), 'an illegal move is refused', await abFen(page));

  if (needs(routes, 'grade', 'grading moves')) {
    // The first move's grade (e4 from the start) is one of the five, with a badge.
    await page.locator('#grade .badge').waitFor({ state: 'visible', timeout: TIMEOUT });
    const g = await page.locator('#grade .badge').getAttribute('data-grade');
    check(['best', 'good', 'inaccuracy', 'mistake', 'blunder'].includes(g), 'a grade badge appears after a move', `${g}: ${await page.locator('#grade').innerText()}`);
    // A blunder is graded as one: from 1. e4 e5, Qh5?? is fine, but 2. Ba6?? loses a piece.
    await page.click('#ab-board [data-square="f1"]');
    await page.click('#ab-board [data-square="a6"]');
    await page.waitForFunction(() => { const b = document.querySelector('#grade .badge'); return b && document.querySelector('#grade').textContent.includes('Ba6'); }, null, { timeout: TIMEOUT });
    const g2 = await page.locator('#grade .badge').getAttribute('data-grade');
    check(g2 === 'mistake' || g2 === 'blunder', '2. Ba6 (a bishop for nothing) is graded a mistake or blunder', `${g2}: ${await page.locator('#grade').innerText()}`);
    check(await page.locator('#move-list .mv.grade-' + g2).count() >= 1, 'the move list marks the graded move');
  }

  // Back to the scanned position.
  await page.click('#back-to-scan');
  check(await abFen(page) === scanned, 'back to the scanned position', await abFen(page));
  check(await page.locator('#ab-board [data-square="e2"]').getAttribute('data-piece') === 'P', 'the board shows it again');
  await page.click('#nav-next');
  check((await abFen(page)).startsWith('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b '), 'the next-move button steps forward again', await abFen(page));
  await page.click('#back-to-scan');
  // The arrow keys browse the moves with the focus outside the analysis card too.
  await page.evaluate(() => document.activeElement && document.activeElement.blur());
  await page.keyboard.press('ArrowRight');
  check((await abFen(page)).startsWith('rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b '), '→ steps forward with nothing focused', await abFen(page));
  await page.keyboard.press('ArrowLeft');
  check(await abFen(page) === scanned, '← steps back with nothing focused', await abFen(page));
  check(!(await page.locator('#move-list').innerText()).includes('!'), 'no move is marked "!" (only losing moves get a sign)',
    await page.locator('#move-list').innerText());

  if (needs(routes, 'hint', 'hints')) {
    await page.selectOption('#hint-level', '1');
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/v1/hint'), { timeout: TIMEOUT }),
      page.click('#hint'),
    ]);
    const h = await res.json().catch(() => ({}));
    check(res.status() === 200 && typeof h.from === 'string', 'POST /api/v1/hint answers a piece', `${res.status()} ${JSON.stringify(h)}`);
    await page.locator('#ab-board .sq.mark-hint').waitFor({ state: 'visible' });
    const sq = await page.locator('#ab-board .sq.mark-hint').getAttribute('data-square');
    const p = await page.locator('#ab-board .sq.mark-hint').getAttribute('data-piece');
    check(sq === h.from && p && p === p.toUpperCase() && p.toUpperCase() === h.piece,
      'hint level 1 marks the piece to move (a White piece, the one named)', `${sq} ${p}; hint ${h.piece} ${h.from}: ${await page.locator('#hint-text').innerText()}`);
    check((await page.locator('#hint-text').innerText()).trim().length > 0, 'the hint is said in words', await page.locator('#hint-text').innerText());

    // The threat: after 1. e4 (Black to move), what does White threaten? The marked piece is White's.
    await page.click('#nav-next');
    const [tres] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/v1/hint'), { timeout: TIMEOUT }),
      page.click('#threat'),
    ]);
    const t = await tres.json().catch(() => ({}));
    await page.locator('#ab-board .sq.mark-threat').waitFor({ state: 'visible' });
    const tp = await page.locator('#ab-board .sq.mark-threat').getAttribute('data-piece');
    check(tres.status() === 200 && t.threat === true && tp && tp === tp.toUpperCase() && tp === t.piece,
      '"what does the opponent threaten" marks a piece of the side not to move', `${tp}; ${JSON.stringify(t)}`);
    await page.click('#back-to-scan');
  }

  if (needs(routes, 'play', 'play against the engine')) {
    await page.click('#play summary');
    await page.selectOption('#play-level', '1');
    await page.check('input[name="play-colour"][value="w"]');
    await page.click('#play-start');
    check(await page.locator('#play-stop').isVisible() && await page.locator('#analyse').isDisabled(), 'a game starts (analysis off while playing)');
    const [res] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith('/api/v1/play'), { timeout: TIMEOUT }),
      (async () => { await page.click('#ab-board [data-square="d2"]'); await page.click('#ab-board [data-square="d4"]'); })(),
    ]);
    check(res.status() === 200, 'POST /api/v1/play answers', res.status());
    await page.waitForFunction(() => document.querySelectorAll('#move-list .mv.engine').length === 1, null, { timeout: TIMEOUT });
    const fen = await abFen(page);
    const plies = (await page.locator('#move-list .mv:not(.start)').allInnerTexts()).map((t) => t.trim());
    check(plies.length === 2 && plies[0] === 'd4' && / w /.test(fen), 'playing d4, the engine answers and it is White\'s move again', `${plies.join(' ')} | ${fen}`);
    check(await page.locator('#ab-board [data-square="e2"].movable').count() === 1, 'the user may move again');
    await page.click('#play-stop');
    check(await page.locator('#play-start').isVisible(), 'the game can be stopped');

    // Watching the engine play both sides, with a one-minute clock.
    await page.check('#play-clock');
    await page.fill('#play-minutes', '1');
    await page.fill('#play-increment', '0');
    const pliesBefore = await page.locator('#move-list .mv:not(.start)').count();
    await page.click('#play-watch');
    await page.waitForFunction((n) => document.querySelectorAll('#move-list .mv:not(.start)').length >= n + 2, pliesBefore, { timeout: TIMEOUT });
    const clocks = [await page.locator('#clock-w').innerText(), await page.locator('#clock-b').innerText()];
    check(clocks.every((c) => /^0:[0-5]\d$/.test(c)), 'watching: the engine plays both sides and both clocks ran', `${clocks.join(' ')}; ${await page.locator('#move-list').innerText()}`);
    await page.click('#play-stop');
    await page.uncheck('#play-clock');
    const panelLines = await page.locator('#engine-panel-1 .lines li').count();
    const panelFen = await page.locator('#engine-panel-1').getAttribute('data-fen');
    check(panelLines === 0 || panelFen === await abFen(page), 'after a game no lines of an earlier position stay in the engine panel',
      `${panelLines} lines of ${panelFen}`);
  }

  // Two engines side by side, when the server has a second one (.ci/browser-test.sh
  // adds Stockfish when it is installed).
  if (routes.engines) {
    const engines = (await (await fetch(`${BASE}/api/v1/engines`)).json()).engines || [];
    const other = engines.find((e) => !e.default);
    if (!other) {
      note('two engines: the server has one engine only; step left out');
    } else {
      await page.waitForFunction(() => document.querySelectorAll('#engine-2 option').length > 1);
      await page.selectOption('#engine-2', other.name);
      await page.click('#analyse').catch(() => {});
      await page.waitForFunction((fen) => {
        const ok = (id) => { const p = document.getElementById(id); return p.dataset.fen === fen && p.querySelectorAll('.lines li').length > 0; };
        return ok('engine-panel-1') && ok('engine-panel-2');
      }, await abFen(page), { timeout: TIMEOUT });
      const second = (await page.locator('#engine-panel-2 .lines li').first().innerText()).replace(/\s+/g, ' ').trim();
      check(/^([+\u2212]?\d+\.\d\d|#-?\d+)\s+\d+(\.|\u2026)\s*\S+/.test(second), `${other.name}'s lines show beside ours`, second);
      check(await page.locator('#ab-board svg line.arrow.second').count() === 1, `${other.name}'s best move has its own arrow`);
      await page.selectOption('#engine-2', '');
      check(await page.locator('#engine-panel-2').isHidden(), 'the second engine can be taken away');
      await page.click('#stop').catch(() => {});
    }
  }

  // Notation: figurines and long algebraic in the engine's lines.
  if (needs(routes, 'lang', 'notation languages')) {
    await page.evaluate(() => { window.__depths = []; });
    await page.selectOption('#notation', 'long');
    await page.selectOption('#lang', 'figurine');
    await page.click('#analyse');
    await page.waitForFunction(() => {
      const t = document.querySelector('#lines li')?.textContent || '';
      return window.__depths.length > 0 && /[\u2654-\u265F]/.test(t);
    }, null, { timeout: TIMEOUT });
    const shown = (await page.locator('#lines').innerText()).replace(/\s+/g, ' ');
    check(/[\u2654-\u2658\u265A-\u265E]/.test(shown) && /[a-h][1-8][-x:][a-h][1-8]/.test(shown),
      'figurine long algebraic shows in the lines', shown.slice(0, 160));
    const listed = (await page.locator('#move-list').innerText()).replace(/\s+/g, ' ');
    check(/\b[a-h]2-[a-h]4\b/.test(listed), 'the move list follows the notation too (long algebraic)', listed);
    await page.selectOption('#lang', 'en');
    await page.selectOption('#notation', 'san');
    await page.click('#stop').catch(() => {});
  }

  // A promotion asks for the piece: a7-a8, knight.
  const promo = '8/P7/8/8/8/8/8/k6K w - - 0 1';
  await page.fill('#fen', promo);
  await page.press('#fen', 'Enter');
  await page.click('#confirm');
  await page.waitForFunction((f) => document.getElementById('ab-fen').textContent === f, promo);
  await page.click('#ab-board [data-square="a7"]');
  await page.click('#ab-board [data-square="a8"]');
  await page.locator('#ab-board [data-promotion="n"]').click();
  check((await abFen(page)).startsWith('N7/8/8/8/8/8/8/k6K b ') && (await page.locator('#move-list').innerText()).includes('a8=N'),
    'a promotion asks for the piece (a8=N)', `${await abFen(page)} | ${await page.locator('#move-list').innerText()}`);
  await page.click('#stop').catch(() => {});

  // Game over on the board: checkmate fills the bar for the winner and nothing moves;
  // a threefold repetition (knights out and back twice) also ends the moves.
  const mated = 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3';
  await page.fill('#fen', mated);
  await page.press('#fen', 'Enter');
  await page.click('#confirm');
  await page.waitForFunction((f) => document.getElementById('ab-fen').textContent.startsWith(f.split(' ')[0]), mated);
  check(await page.locator('#ab-board .sq.movable').count() === 0 && await page.locator('#eval-bar').getAttribute('aria-valuenow') === '0',
    'checkmate: no piece moves and the bar is Black\'s', `${await page.locator('#ab-board .sq.movable').count()} movable, bar ${await page.locator('#eval-bar').getAttribute('aria-valuenow')}`);
  await page.click('#manual');
  await page.click('#confirm');
  await page.waitForFunction(() => document.getElementById('ab-fen').textContent.startsWith('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w'));
  await page.click('#stop').catch(() => {});
  for (const [a, b] of [['g1', 'f3'], ['g8', 'f6'], ['f3', 'g1'], ['f6', 'g8'], ['g1', 'f3'], ['g8', 'f6'], ['f3', 'g1'], ['f6', 'g8']]) {
    await page.click(`#ab-board [data-square="${a}"]`);
    await page.click(`#ab-board [data-square="${b}"]`);
  }
  check((await page.locator('#move-list .mv:not(.start)').count()) === 8 && await page.locator('#ab-board .sq.movable').count() === 0,
    'threefold repetition: after the knights went out and back twice, nothing moves',
    `${await page.locator('#move-list').innerText()}; ${await page.locator('#ab-board .sq.movable').count()} movable`);

  // Layout: narrow screens stack the board over the lines; wide ones put them side by side.
  const narrow = await page.evaluate(() => document.documentElement.scrollWidth);
  check(narrow <= 390, 'the analysis board fits 390 px (no horizontal scrolling)', `scrollWidth ${narrow}`);
  let b = await page.locator('#ab-board').boundingBox(), l = await page.locator('#engine-panel-1').boundingBox();
  check(l.y >= b.y + b.height, 'narrow: the lines are under the board', `board ${JSON.stringify(b)}, lines ${JSON.stringify(l)}`);
  await page.setViewportSize({ width: 1280, height: 900 });
  b = await page.locator('#ab-board').boundingBox(); l = await page.locator('#engine-panel-1').boundingBox();
  check(l.x >= b.x + b.width && l.y < b.y + b.height, 'wide: the lines are beside the board', `board ${JSON.stringify(b)}, lines ${JSON.stringify(l)}`);
}

async function main() {
  const expected = expectedBoardFen();
  console.log(`boardscan e2e: ${BASE}, image testdata/${IMAGE}\n      expected board: ${expected}`);

  const browser = await launchChromium();
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
    check(await page.locator('#board [data-square]').count() === 64, 'the board has 64 squares');
    const analysisHref = await page.locator('#lichess-analysis').getAttribute('href');
    check(analysisHref === `https://lichess.org/analysis/${fen1.replace(/ /g, '_')}`, 'lichess analysis link carries the FEN', analysisHref);

    // Flip.
    const before = await page.locator('#board [data-square="a1"]').boundingBox();
    const firstBefore = await page.locator('#board [data-square]').first().getAttribute('data-square');
    await page.click('#flip');
    const after = await page.locator('#board [data-square="a1"]').boundingBox();
    const firstAfter = await page.locator('#board [data-square]').first().getAttribute('data-square');
    check(before && after && (Math.abs(before.x - after.x) > 100 && Math.abs(before.y - after.y) > 100),
      'flipping moves a1 to the opposite corner', `a1 at (${before?.x | 0},${before?.y | 0}) then (${after?.x | 0},${after?.y | 0}); top-left ${firstBefore} then ${firstAfter}`);
    check(await fenValue(page) === fen1, 'flipping leaves the FEN alone', await fenValue(page));
    await page.click('#flip');

    // Side to move.
    await page.check('#stm-b');
    check((await fenValue(page)).split(' ')[1] === 'b', 'side to move Black shows in the FEN', await fenValue(page));
    await page.check('#stm-w');

    // Edit a square with the palette: empty e2.
    const piece = await page.locator('#board [data-square="e2"]').getAttribute('data-piece');
    await page.click('#board [data-square="e2"]');
    await page.locator('#palette').waitFor({ state: 'visible' });
    await page.click('#palette [data-piece=""]');
    const fen2 = await fenValue(page);
    check(fen2.split(' ')[0] === withSquare(shown, 'e2', null), 'emptying e2 changes the FEN accordingly', fen2);
    check(await page.locator('#palette').isHidden(), 'the palette closes after a choice');

    // And with the keyboard: the square has the focus again; type the piece back.
    await page.locator('#board [data-square="e2"]').press(piece ? piece : 'Delete');
    check((await fenValue(page)) === fen1, 'typing a piece letter on a square puts it back', await fenValue(page));
    await page.locator('#board [data-square="e2"]').press('q');
    const fen3 = await fenValue(page);
    check(fen3.split(' ')[0] === withSquare(shown, 'e2', 'q'), 'typing q puts a black queen on e2', fen3);
    await page.locator('#board [data-square="e2"]').press(piece ? piece : 'Delete');

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
    check((await page.locator('#board [data-square="c6"]').getAttribute('data-piece')) === 'n'
      && (await fenValue(page)) === typed, 'a typed FEN sets the board and keeps its move numbers', await fenValue(page));

    // The analysis board, on the scanned position.
    if (SKIP_ANALYSIS) {
      note('analysis board steps skipped (E2E_SKIP_ANALYSIS=1)');
    } else {
      await analysisBoard(page, context);
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
