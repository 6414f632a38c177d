// Sharing: the address holds what is on the page, so that a link opens the same
// board, line or game; "Copy link" buttons copy it, "Copy image" copies a board
// as a PNG (or saves it where the browser cannot copy images).
//
// A link's fragment, `&`-separated (FEN with `_` for spaces, as lichess writes it):
//   #fen=<FEN>                              a position: the editor and the analysis board
//   #fen=<FEN>&moves=e2e4,e7e5&ply=1&flip=1 a line on the analysis board, at ply 1, Black at the bottom
//   #scan=12&board=0&fen=<FEN>              a board the library keeps (the FEN if it is gone)
//   #game=1&fen=<FEN>&moves=…&ply=5          a whole game, analysed again in the Whole game card
// The same names as query parameters (?fen=…&moves=…) work too.

import { Chess } from './vendor/chess.js?v={{asset-version}}';
import { showError } from './api.js?v={{asset-version}}';
import { gameView } from './game.js?v={{asset-version}}';
import { say, t } from './i18n.js?v={{asset-version}}';

const $ = (id) => document.getElementById(id);

// The address of a link to `o`: {fen, moves?, ply?, flip?, scan?, board?, game?}.
export function shareLink(o) {
  const parts = [];
  if (o.game) parts.push('game=1');
  if (o.scan != null) parts.push(`scan=${encodeURIComponent(o.scan)}`, `board=${o.board ?? 0}`);
  if (o.fen) parts.push(`fen=${encodeURIComponent(o.fen.trim().replace(/\s+/g, '_')).replace(/%2F/g, '/')}`);
  const moves = o.moves || [];
  if (moves.length) parts.push(`moves=${moves.join(',')}`);
  if (o.ply != null && o.ply !== moves.length) parts.push(`ply=${o.ply}`);
  if (o.flip) parts.push('flip=1');
  return `${location.origin}${location.pathname}#${parts.join('&')}`;
}

// What a link's fragment or query holds, or null when it holds nothing to open.
export function readLink(text) {
  const params = new URLSearchParams(String(text || '').replace(/^[#?]/, ''));
  const fen = (params.get('fen') || '').replace(/_/g, ' ').trim();
  const scan = params.get('scan');
  if (!fen && !scan) return null;
  const number = (name) => (/^\d+$/.test(params.get(name) || '') ? Number(params.get(name)) : null);
  return {
    fen,
    moves: (params.get('moves') || '').split(/[,\s]+/).filter((m) => /^[a-h][1-8][a-h][1-8][qrbn]?$/.test(m)),
    ply: number('ply'),
    flip: params.get('flip') === '1',
    scan: scan && /^\d+$/.test(scan) ? Number(scan) : null,
    board: number('board') ?? 0,
    game: params.get('game') === '1',
  };
}

// Shows what a copy did beside its button: the words and the link itself.
function note(button, key, url) {
  const box = button.parentElement.querySelector('.share-note');
  if (!box) return;
  box.textContent = '';
  const words = document.createElement('span');
  say(words, key);
  box.append(words);
  if (url) {
    const a = document.createElement('a');
    a.href = url;
    a.dataset.testid = 'share-link';
    a.textContent = url;
    box.append(' ', a);
  }
}

// Puts `url` into the address bar and the clipboard.
async function copyLink(button, url) {
  history.replaceState(null, '', url);
  let ok = false;
  try { await navigator.clipboard.writeText(url); ok = true; } catch (_) { ok = false; }
  note(button, ok ? 'share.linkCopied' : 'share.linkHere', url);
}

// ---------- a board as a picture ----------

const GLYPH = { k: '\u265A', q: '\u265B', r: '\u265C', b: '\u265D', n: '\u265E', p: '\u265F' };

// The position of `fen` drawn on a canvas `size` pixels wide, Black at the bottom if `flipped`.
export function boardCanvas(fen, flipped = false, size = 480) {
  const canvas = document.createElement('canvas');
  canvas.width = size;
  canvas.height = size;
  const g = canvas.getContext('2d');
  const sq = size / 8;
  const rows = String(fen).split(' ')[0].split('/');
  g.textAlign = 'center';
  g.textBaseline = 'middle';
  g.font = `${Math.round(sq * 0.82)}px "DejaVu Sans", "Segoe UI Symbol", "Noto Sans Symbols 2", "Apple Symbols", serif`;
  g.lineJoin = 'round';
  for (let r = 0; r < 8; r++) {
    const cells = [];
    for (const ch of rows[r] || '8') {
      if (/\d/.test(ch)) for (let k = 0; k < Number(ch); k++) cells.push(null);
      else cells.push(ch);
    }
    for (let f = 0; f < 8; f++) {
      const x = (flipped ? 7 - f : f) * sq, y = (flipped ? 7 - r : r) * sq;
      g.fillStyle = (r + f) % 2 === 0 ? '#f0d9b5' : '#b58863';
      g.fillRect(x, y, sq, sq);
      const p = cells[f];
      if (!p || !GLYPH[p.toLowerCase()]) continue;
      const white = p === p.toUpperCase();
      const cx = x + sq / 2, cy = y + sq * 0.54;
      g.lineWidth = Math.max(1, sq / 24);
      g.strokeStyle = white ? '#000' : '#fff';
      g.fillStyle = white ? '#fff' : '#000';
      g.strokeText(GLYPH[p.toLowerCase()], cx, cy);
      g.fillText(GLYPH[p.toLowerCase()], cx, cy);
    }
  }
  return canvas;
}

// Copies the board as a PNG; where the browser cannot, saves it as a file.
async function copyImage(button, fen, flipped) {
  const blob = await new Promise((resolve) => boardCanvas(fen, flipped).toBlob(resolve, 'image/png'));
  if (!blob) return;
  try {
    if (!navigator.clipboard || !window.ClipboardItem) throw new Error('no image clipboard');
    await navigator.clipboard.write([new ClipboardItem({ 'image/png': blob })]);
    note(button, 'share.imageCopied');
  } catch (_) {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = `boardscan-${fen.split(' ')[0].replace(/\//g, '-')}.png`;
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(a.href), 10000);
    note(button, 'share.imageSaved');
  }
}

// ---------- opening a link ----------

function badLink(reason) {
  showError($('error'), t('share.badLink', { reason }));
}

async function openLink(link) {
  const app = window.boardscan;
  if (!link || !app) return;
  if (link.game) {
    try { new Chess(link.fen || undefined); } catch (e) { badLink(e.message); return; }
    await gameView.open(link.fen, link.moves, link.ply);
    return;
  }
  let opened = false;
  if (link.scan != null && window.boardscanLibrary) {
    opened = await window.boardscanLibrary.openScan(link.scan, link.board);
    if (!opened && link.fen) say($('status'), 'share.scanGone', { id: link.scan });
  }
  if (!opened) {
    if (!link.fen) { badLink(t('lib.scanN', { id: link.scan })); return; }
    if (!app.openFen(link.fen, { flipped: link.flip })) { badLink(link.fen); return; }
  }
  const ab = app.analysisBoard;
  if (!(await app.confirm())) return;
  if (link.flip) ab.board.setOrientation('black');
  ab.orientEvalBar();
  if (link.moves.length) ab.playShared(link.moves, link.ply);
  $('analysis').scrollIntoView({ block: 'start' });
}

// ---------- wiring ----------

const app = window.boardscan;
const ab = app && app.analysisBoard;

// The address follows the analysis board, and the game card once a game is analysed.
if (ab) ab.onShow = () => history.replaceState(null, '', shareLink(ab.shareState()));
$('game-card')?.addEventListener('game-done', () => {
  const s = gameView.shareState();
  if (s) history.replaceState(null, '', shareLink({ ...s, game: true }));
});

$('pos-link')?.addEventListener('click', (e) => {
  const board = app.board();
  const kept = board && board.scanId != null ? { scan: board.scanId, board: board.scanBoard ?? 0 } : {};
  copyLink(e.currentTarget, shareLink({ fen: app.fen(), flip: app.flipped(), ...kept }));
});
$('pos-image')?.addEventListener('click', (e) => copyImage(e.currentTarget, app.fen(), app.flipped()));
$('ab-link')?.addEventListener('click', (e) => copyLink(e.currentTarget, shareLink(ab.shareState())));
$('ab-image')?.addEventListener('click', (e) => copyImage(e.currentTarget, ab.fen(), ab.board.orientation === 'black'));
$('game-link')?.addEventListener('click', (e) => {
  const s = gameView.shareState();
  if (s) copyLink(e.currentTarget, shareLink({ ...s, game: true }));
});

// A link pasted into this tab's address bar changes only the fragment.
window.addEventListener('hashchange', () => {
  const link = readLink(location.hash);
  if (link) openLink(link);
});

const first = readLink(location.hash) || readLink(location.search);
if (first) openLink(first);

// For tests and other scripts.
window.boardscanShare = { shareLink, readLink, boardCanvas, open: openLink };
