// Corrects misread boards through the web page, as a user does: for each
// picture of a labels CSV (`file,fen,view,kind`), upload it on the page, and
// where the page's reading differs from the labelled placement, click each
// wrong square of the editor, pick the right piece in the palette, and press
// "Save correction". The corrections then go out with
// `boardscan library export-corrections DIR` (training/finetune_corrections.py
// fine-tunes on them; the model card, "Fine-tuning on library corrections").
//
//   BOARDSCAN_URL=http://127.0.0.1:18089 node tests/browser/correct_boards.mjs LABELS.csv
//
// Needs a running `boardscan serve --library FILE`. Prints one line a picture
// and a summary; exits 1 if a correction could not be made or saved.

import { launchChromium } from './harness.mjs';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const BASE = (process.env.BOARDSCAN_URL || 'http://127.0.0.1:18089').replace(/\/$/, '');
const TIMEOUT = Number(process.env.E2E_TIMEOUT_MS || 60000);
const LABELS = process.argv[2];
if (!LABELS) {
  console.error('usage: node correct_boards.mjs LABELS.csv');
  process.exit(2);
}

/** {square name: piece letter} of a FEN placement. */
function squares(placement) {
  const out = {};
  placement.split('/').forEach((row, r) => {
    let file = 0;
    for (const c of row) {
      if (/\d/.test(c)) { file += Number(c); continue; }
      out[`${'abcdefgh'[file]}${8 - r}`] = c;
      file += 1;
    }
  });
  return out;
}

function rows(path) {
  const [header, ...lines] = readFileSync(path, 'utf8').trim().split('\n');
  const keys = header.split(',');
  return lines.map((l) => Object.fromEntries(l.split(',').map((v, i) => [keys[i], v])));
}

async function main() {
  const browser = await launchChromium();
  const tally = { pictures: 0, right: 0, corrected: 0, squares: 0, noBoard: 0, failed: 0 };
  try {
    const page = await (await browser.newContext({ viewport: { width: 1200, height: 900 } })).newPage();
    page.setDefaultTimeout(TIMEOUT);
    for (const row of rows(LABELS)) {
      tally.pictures += 1;
      await page.goto(`${BASE}/`);
      await page.locator('[data-testid="library"]').waitFor({ state: 'visible' });
      const recognized = page.waitForResponse((r) => r.url().endsWith('/api/v1/recognize'));
      await page.setInputFiles('#file-input', join(dirname(LABELS), row.file));
      const body = await (await recognized).json();
      const board = body.boards && body.boards[0];
      if (!board || !Number.isInteger(board.scanId)) {
        tally.noBoard += 1;
        console.log(`${row.file}: no board read`);
        continue;
      }
      await page.waitForFunction(() => document.querySelector('#fen').value.includes(' '));
      const read = squares((await page.locator('#fen').inputValue()).split(' ')[0]);
      const truth = squares(row.fen);
      const wrong = [...new Set([...Object.keys(read), ...Object.keys(truth)])]
        .filter((sq) => read[sq] !== truth[sq]).sort();
      if (!wrong.length) {
        tally.right += 1;
        console.log(`${row.file}: read right`);
        continue;
      }
      for (const sq of wrong) {
        await page.click(`[data-square="${sq}"]`);
        await page.locator('#palette').waitFor({ state: 'visible' });
        await page.click(`#palette [data-piece="${truth[sq] || ''}"]`);
        await page.locator('#palette').waitFor({ state: 'hidden' });
      }
      let fen = await page.locator('#fen').inputValue();
      if (fen.split(' ')[0] !== row.fen) {
        tally.failed += 1;
        console.log(`${row.file}: the editor holds ${fen}, not ${row.fen}`);
        continue;
      }
      const save = async () => {
        const saved = page.waitForResponse((r) => r.url().includes(`/api/v1/scans/${board.scanId}/boards/0/corrections`));
        await page.click('[data-testid="save-correction"]');
        const answer = await saved;
        return [answer, await answer.json()];
      };
      let [answer, kept] = await save();
      if (answer.status() === 400 && /side not to move is in check/.test(kept.error || '')) {
        // The labels give squares only: the other side is to move, as a user would set it.
        await page.check(await page.isChecked('#stm-w') ? '#stm-b' : '#stm-w');
        fen = await page.locator('#fen').inputValue();
        [answer, kept] = await save();
      }
      if (answer.status() !== 200 || kept.corrected !== true || kept.fen !== fen) {
        tally.failed += 1;
        console.log(`${row.file}: saving failed: ${answer.status()} ${JSON.stringify(kept).slice(0, 200)}`);
        continue;
      }
      tally.corrected += 1;
      tally.squares += wrong.length;
      console.log(`${row.file}: corrected ${wrong.length} square(s): ${wrong.join(' ')}`);
    }
  } finally {
    await browser.close();
  }
  console.log(`${tally.pictures} pictures: ${tally.right} read right, ${tally.corrected} corrected in the editor `
    + `(${tally.squares} squares), ${tally.noBoard} without a board, ${tally.failed} failed`);
  if (tally.failed) process.exit(1);
}

main().catch((e) => { console.error(e); process.exit(1); });
