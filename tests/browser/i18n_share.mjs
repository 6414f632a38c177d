// End-to-end test of the page's languages and share links in headless Chromium:
// the first visit takes the browser's language; the switch turns the page into
// Russian (labels, <html lang>, the words the scripts write) and is remembered
// over a reload; a link with a FEN and moves opens that line on the analysis
// board; "Copy link" puts a link in the address bar and the clipboard that opens
// the same line again; "Copy image" copies the board as a PNG; an analysed game
// is shared by link and its annotated PGN downloads.
//
//   BOARDSCAN_URL=http://127.0.0.1:18089 node tests/browser/i18n_share.mjs
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

// A line from a position after 1.e4 e5 2.Nf3 Nc6: 3.Bb5 a6, and the FEN after it,
// written here by hand rather than by the page's code.
const START = 'r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3';
const MOVES = ['f1b5', 'a7a6'];
const AFTER_1 = 'r1bqkbnr/pppp1ppp/2n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R b KQkq - 3 3';
const AFTER_2 = 'r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4';
const link = (fen, moves, extra = '') => `${BASE}/#fen=${fen.replace(/ /g, '_')}&moves=${moves.join(',')}${extra}`;

const text = (page, sel) => page.locator(sel).first().innerText();
const attr = (page, sel, name) => page.locator(sel).first().getAttribute(name);
const htmlLang = (page) => page.evaluate(() => document.documentElement.lang);

function watch(page, errors) {
  page.setDefaultTimeout(TIMEOUT);
  page.on('pageerror', (e) => errors.push(String(e)));
}

async function abFenIs(page, fen) {
  await page.waitForFunction((want) => document.querySelector('#ab-fen')?.textContent === want, fen).catch(() => {});
  return (await text(page, '#ab-fen')) === fen;
}

async function main() {
  const browser = await launchChromium();
  const errors = [];
  try {
    // ---------- the first visit speaks the browser's language ----------
    const german = await browser.newContext({ locale: 'de-DE' });
    const dePage = await german.newPage();
    watch(dePage, errors);
    await dePage.goto(`${BASE}/`);
    check(await htmlLang(dePage) === 'de', 'a German browser gets the page in German (<html lang="de">)', await htmlLang(dePage));
    check(await text(dePage, '#game-title') === 'Ganze Partie', 'a German browser sees German labels', await text(dePage, '#game-title'));
    check(await dePage.locator('#ui-lang').inputValue() === 'de', 'the switch shows German');
    await german.close();

    // ---------- the switch: Russian, remembered ----------
    const context = await browser.newContext({ locale: 'en-US', viewport: { width: 1200, height: 1400 } });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: BASE });
    const page = await context.newPage();
    watch(page, errors);
    await page.goto(`${BASE}/`);
    check(await htmlLang(page) === 'en', 'an English browser gets English (<html lang="en">)', await htmlLang(page));
    check(await text(page, '#game-title') === 'Whole game', 'English labels at first', await text(page, '#game-title'));

    await page.selectOption('#ui-lang', 'ru');
    check(await htmlLang(page) === 'ru', 'the switch sets <html lang="ru">', await htmlLang(page));
    const russian = {
      '#upload-title': '1. Картинка',
      '#manual': 'Расставить позицию вручную',
      '#game-title': 'Вся партия',
      '#game-analyse': 'Анализировать партию',
      'label[for="opt-side"]': 'Очередь хода',
      '#analysis-title': '3. Доска для анализа',
    };
    for (const [sel, want] of Object.entries(russian)) {
      const got = await page.locator(sel).first().textContent();
      check(got.trim() === want, `in Russian, ${sel} reads "${want}"`, got);
    }
    check(await attr(page, '#nav-prev', 'aria-label') === 'Предыдущий ход', 'attributes are translated too (aria-label)', await attr(page, '#nav-prev', 'aria-label'));
    if (await page.locator('#library').isVisible()) {
      check(await text(page, '#library-title') === 'Библиотека', 'the library card (library.js) is in Russian', await text(page, '#library-title'));
    }
    // Words a script writes: the editor's board info after "set up by hand".
    await page.locator('#manual').click();
    check((await text(page, '#board-info')).startsWith('Начальная позиция'), 'messages the scripts write are Russian', await text(page, '#board-info'));
    check((await attr(page, '#board [data-square="e1"]', 'aria-label')) === 'e1, белый король', 'square labels name pieces in Russian',
      await attr(page, '#board [data-square="e1"]', 'aria-label'));

    await page.reload();
    check(await htmlLang(page) === 'ru', 'after a reload the page is still Russian (<html lang="ru">)', await htmlLang(page));
    check(await page.locator('#ui-lang').inputValue() === 'ru', 'the switch still shows Russian after a reload');
    check(await text(page, '#game-title') === 'Вся партия', 'labels are Russian after a reload', await text(page, '#game-title'));
    check(await page.evaluate(() => localStorage.getItem('boardscan.lang')) === 'ru', 'the choice is kept in localStorage');

    // ---------- a shared line opens on the analysis board ----------
    const line = await context.newPage();
    watch(line, errors);
    await line.goto(link(START, MOVES));
    check(await abFenIs(line, AFTER_2), 'a link with a FEN and moves shows the position after the moves', await text(line, '#ab-fen'));
    check(await line.locator('#fen').inputValue() === START, 'the editor holds the link\'s FEN', await line.locator('#fen').inputValue());
    check(await attr(line, '#ab-board [data-square="b5"]', 'data-piece') === 'B' && await attr(line, '#ab-board [data-square="a6"]', 'data-piece') === 'p'
      && await attr(line, '#ab-board [data-square="f1"]', 'data-piece') === '', 'the board draws the pieces where the moves put them');
    const played = await line.locator('#move-list .mv:not(.start)').count();
    check(played === 2, 'the move list holds the link\'s two moves', played);
    check(await text(line, '#move-list .mv.start') === 'Начало', 'the move list speaks Russian (remembered in this browser)', await text(line, '#move-list .mv.start'));

    await line.goto(link(START, MOVES, '&ply=1&flip=1'));
    check(await abFenIs(line, AFTER_1), 'a link with ply=1 shows the position after the first move', await text(line, '#ab-fen'));
    check(await attr(line, '#ab-board', 'data-orientation') === 'black', 'flip=1 shows the board from Black\'s side', await attr(line, '#ab-board', 'data-orientation'));
    check(await line.locator('#move-list .mv:not(.start)').count() === 2, 'the rest of the line is kept after the shown ply');

    // ---------- "Copy link" and "Copy image" ----------
    await line.locator('#nav-last').click();
    await abFenIs(line, AFTER_2);
    await line.locator('#ab-link').click();
    await line.locator('#analysis [data-testid="share-link"]').waitFor();
    const copied = await line.locator('#analysis [data-testid="share-link"]').getAttribute('href');
    const address = line.url();
    check(copied === address, 'Copy link puts the link into the address bar', `${copied} vs ${address}`);
    const clip = await line.evaluate(() => navigator.clipboard.readText()).catch((e) => `(clipboard: ${e})`);
    check(clip === copied, 'Copy link puts the link on the clipboard', clip);
    check(/[#&]moves=f1b5,a7a6(&|$)/.test(copied) && copied.includes(`fen=${START.replace(/ /g, '_')}`) && /[#&]flip=1/.test(copied),
      'the link holds the start FEN, the moves and the orientation', copied);
    const again = await context.newPage();
    watch(again, errors);
    await again.goto(copied);
    check(await abFenIs(again, AFTER_2), 'the copied link opens the same position', await text(again, '#ab-fen'));
    check(await attr(again, '#ab-board', 'data-orientation') === 'black', 'the copied link keeps the orientation');
    await again.close();

    await line.locator('#ab-image').click();
    // The note beside the buttons says the image was copied (it said the link was, before).
    await line.waitForFunction(() => /^Картинка/.test(document.querySelector('#analysis .share-note')?.textContent || ''));
    const image = await line.evaluate(async () => {
      const items = await navigator.clipboard.read();
      const blob = await items[0].getType('image/png');
      const bitmap = await createImageBitmap(blob);
      const c = new OffscreenCanvas(bitmap.width, bitmap.height);
      const g = c.getContext('2d');
      g.drawImage(bitmap, 0, 0);
      const px = (x, y) => Array.from(g.getImageData(x, y, 1, 1).data.slice(0, 3));
      // Seen from Black: the top-left square is h1 (light), the next one g1 (dark).
      return { type: blob.type, w: bitmap.width, h: bitmap.height, h1: px(3, 3), g1: px(bitmap.width / 8 + 3, 3) };
    }).catch((e) => ({ error: String(e) }));
    check(image.type === 'image/png' && image.w === image.h && image.w >= 256, 'Copy image puts a square PNG of the board on the clipboard', JSON.stringify(image));
    const near = (a, b) => Array.isArray(a) && a.every((v, i) => Math.abs(v - b[i]) < 12);
    check(near(image.h1, [240, 217, 181]) && near(image.g1, [181, 136, 99]), 'the image is drawn from the board\'s side (light h1 top-left when flipped)', JSON.stringify(image));
    await line.close();

    // ---------- a game: analysed, shared, downloaded ----------
    await page.locator('[data-testid="game-pgn"]').fill(PGN);
    await page.locator('[data-testid="game-analyse"]').click();
    await page.waitForFunction(() => document.querySelector('#game-status').textContent === 'Готово.');
    const moves = await page.locator('[data-testid="game-move"]').count();
    check(moves === 7, 'the game is analysed (seven moves)', moves);
    const blunder = page.locator('[data-testid="game-move"][data-ply="6"]');
    check(/^Грубая ошибка/.test(await blunder.getAttribute('title')), 'the grade of 3...Nf6 reads "Грубая ошибка"', await blunder.getAttribute('title'));
    const summary = await text(page, '#game-summary');
    check(/Белые: точность \d+(,\d)?%/.test(summary) && /грубых ошибок: 1/.test(summary), 'the summary is Russian, its numbers written the Russian way', summary);
    check((await blunder.innerText()).startsWith('Кf6'), 'the moves follow the page\'s language (notation not chosen)', await blunder.innerText());
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator('#game-download').click()]);
    const pgn = readFileSync(await download.path(), 'utf8');
    check(/f6\?\?/.test(pgn) && pgn.includes('[%eval #1]'), 'the annotated PGN downloads, with the blunder marked and the evals', pgn.slice(0, 200));

    await page.locator('#game-link').click();
    await page.locator('#game-card [data-testid="share-link"]').waitFor();
    const gameLink = await page.locator('#game-card [data-testid="share-link"]').getAttribute('href');
    check(/[#&]game=1/.test(gameLink) && /moves=e2e4,e7e5,/.test(gameLink), 'the game\'s link holds its moves', gameLink);
    const shared = await context.newPage();
    watch(shared, errors);
    await shared.goto(gameLink);
    await shared.waitForFunction(() => document.querySelector('#game-status').textContent === 'Готово.').catch(() => {});
    const sharedMoves = await shared.locator('[data-testid="game-move"]').allInnerTexts();
    const ownMoves = await page.locator('[data-testid="game-move"]').allInnerTexts();
    // The same moves; their grades may differ, since each position's search
    // is held to a time cap that a loaded machine can reach first.
    const bare = (texts) => texts.map((t) => t.replace(/[?!]+$/, '')).join(' ');
    check(sharedMoves.length === 7 && bare(sharedMoves) === bare(ownMoves), 'the game\'s link opens the same game, analysed', sharedMoves.join(' '));
    await shared.close();

    // ---------- back to English: what is on the page follows ----------
    await page.selectOption('#ui-lang', 'en');
    check(await htmlLang(page) === 'en', 'switching back sets <html lang="en">');
    check(await text(page, '#game-title') === 'Whole game', 'labels are English again', await text(page, '#game-title'));
    check(/^Blunder/.test(await blunder.getAttribute('title')), 'the game\'s grades are rewritten in English', await blunder.getAttribute('title'));
    check(await text(page, '#game-status') === 'Done.', 'the status line is rewritten in English', await text(page, '#game-status'));
    check(errors.length === 0, 'no script errors', errors.join('; '));
  } finally {
    await browser.close();
  }
  if (failures.length) {
    console.log(`\n${failures.length} check(s) failed`);
    process.exit(1);
  }
  console.log('\nall language and share checks passed');
}

main().catch((e) => { console.error(e); process.exit(1); });
