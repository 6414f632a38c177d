// boardscan web page: upload a picture, show and fix the recognised board, then
// confirm it to open it on the analysis board (analysis-board.js).
// Plain browser JavaScript modules, nothing fetched from other hosts.

import { clearError, readResponse, showError } from './api.js?v={{asset-version}}';
import { AnalysisBoard } from './analysis-board.js?v={{asset-version}}';
import { coord, pieceName, pieceSpan } from './board.js?v={{asset-version}}';
import { onLangChange, plain, say, t } from './i18n.js?v={{asset-version}}';
import { chosenSet, initSets } from './sets.js?v={{asset-version}}';

(() => {
  const FILES = 'abcdefgh';
  const UNCERTAIN = 0.9;
  const PALETTE = ['K', 'Q', 'R', 'B', 'N', 'P', 'k', 'q', 'r', 'b', 'n', 'p'];

  const $ = (id) => document.getElementById(id);
  const el = {
    fileInput: $('file-input'), dropZone: $('drop-zone'), optSide: $('opt-side'), optView: $('opt-view'),
    status: $('status'), error: $('error'), previewWrap: $('preview-wrap'), preview: $('preview'),
    previewBoxes: $('preview-boxes'), result: $('result'), boardPickRow: $('board-pick-row'),
    boardPick: $('board-pick'), boardInfo: $('board-info'), warnings: $('warnings'), board: $('board'),
    palette: $('palette'), paletteTitle: $('palette-title'), paletteGrid: $('palette-grid'),
    paletteClose: $('palette-close'), flip: $('flip'), stmW: $('stm-w'), stmB: $('stm-b'),
    fen: $('fen'), copyFen: $('copy-fen'), lichessAnalysis: $('lichess-analysis'),
    lichessEditor: $('lichess-editor'), confirm: $('confirm'), confirmNote: $('confirm-note'),
  };
  const castleBoxes = Array.from(document.querySelectorAll('input[data-castle]'));

  const analysisBoard = new AnalysisBoard();
  initSets();

  const state = {
    boards: [],        // boards from the last recognition
    current: 0,        // index into boards
    pieces: emptyBoard(), // 64 entries, index = rankIndex * 8 + file, rankIndex 0 = rank 8
    recognised: emptyBoard(),
    confidence: new Array(64).fill(1),
    flipped: false,
    cursor: 0,         // square index with the keyboard focus
    editing: null,     // square index being edited in the palette
    uploadSeq: 0,
    confirmedFen: null, // the position last opened on the analysis board
    // A typed FEN's last three fields, kept while its placement is on the board.
    typed: null,       // {placement, ep, halfmove, fullmove}
  };

  function emptyBoard() { return new Array(64).fill(null); }
  const squareName = (i) => FILES[i % 8] + (8 - Math.floor(i / 8));
  const squareIndex = (name) => (8 - Number(name[1])) * 8 + FILES.indexOf(name[0]);

  // ---------- messages ----------

  // A message by its key (translated again when the language changes), or plain text.
  function setStatus(key, params, busy = false) {
    if (key) say(el.status, key, params); else plain(el.status, '');
    el.status.classList.toggle('busy', busy);
  }

  // ---------- upload ----------

  async function upload(file) {
    if (!file) return;
    clearError(el.error);
    const seq = ++state.uploadSeq;
    const isPdf = file.type === 'application/pdf' || /\.pdf$/i.test(file.name || '');
    if (isPdf) hidePreview(); else showPreview(file);
    if (isPdf) setStatus('upload.readingPdf', { name: file.name }, true);
    else if (file.name) setStatus('upload.reading', { name: file.name }, true);
    else setStatus('upload.readingPasted', null, true);
    el.fileInput.disabled = true;
    const form = new FormData();
    form.append('image', file, file.name || 'pasted-image');
    const options = {};
    if (el.optSide.value) options.sideToMove = el.optSide.value;
    if (el.optView.value) options.view = el.optView.value;
    if (chosenSet()) options.set = chosenSet();
    const pages = document.getElementById('opt-pages').value.trim();
    if (isPdf && pages) options.pages = pages;
    if (Object.keys(options).length) form.append('options', JSON.stringify(options));
    let result;
    try {
      const res = await fetch('/api/v1/recognize', { method: 'POST', body: form });
      result = await readResponse(res);
    } catch (e) {
      result = { ok: false, message: t('err.unreachable', { message: e.message }) };
    } finally {
      el.fileInput.disabled = false;
      el.fileInput.value = '';
    }
    if (seq !== state.uploadSeq) return;
    if (!result.ok) {
      setStatus(null);
      showError(el.error, result.message, result.code);
      return;
    }
    const boards = Array.isArray(result.body.boards) ? result.body.boards : [];
    if (!boards.length) {
      setStatus(null);
      showError(el.error, t('upload.noBoard'), 'no-board-found');
      return;
    }
    const unread = Array.isArray(result.body.pageErrors) ? result.body.pageErrors : [];
    const found = boards.length === 1 ? 'upload.foundOne' : 'upload.foundMany';
    if (unread.length) {
      const list = unread.map((e) => t('upload.pageError', { page: e.page, error: e.error })).join('; ');
      setStatus('upload.foundUnread', { found: { key: found, params: { n: boards.length } }, n: unread.length, list });
    } else {
      setStatus(found, { n: boards.length });
    }
    state.boards = boards;
    fillBoardPicker();
    selectBoard(0);
  }

  function hidePreview() {
    if (el.preview.src) URL.revokeObjectURL(el.preview.src);
    el.preview.removeAttribute('src');
    el.previewBoxes.textContent = '';
    el.previewWrap.hidden = true;
  }

  function showPreview(file) {
    if (el.preview.src) URL.revokeObjectURL(el.preview.src);
    el.preview.src = URL.createObjectURL(file);
    el.previewBoxes.textContent = '';
    el.previewWrap.hidden = false;
  }

  function boxOf(b) {
    if (Array.isArray(b.box) && b.box.length === 4) return b.box;
    if (Array.isArray(b.corners) && b.corners.length) {
      const xs = b.corners.map((c) => c[0]), ys = b.corners.map((c) => c[1]);
      const x = Math.min(...xs), y = Math.min(...ys);
      return [x, y, Math.max(...xs) - x, Math.max(...ys) - y];
    }
    return null;
  }

  function drawPreviewBoxes() {
    el.previewBoxes.textContent = '';
    const w = el.preview.naturalWidth, h = el.preview.naturalHeight;
    if (!w || !h) return;
    state.boards.forEach((b, i) => {
      const box = boxOf(b);
      if (!box) return;
      const btn = document.createElement('button');
      btn.type = 'button';
      btn.className = 'preview-box' + (i === state.current ? ' selected' : '');
      btn.style.left = `${(100 * box[0]) / w}%`;
      btn.style.top = `${(100 * box[1]) / h}%`;
      btn.style.width = `${(100 * box[2]) / w}%`;
      btn.style.height = `${(100 * box[3]) / h}%`;
      btn.setAttribute('aria-label', t('upload.showBoard', { n: i + 1 }));
      btn.tabIndex = state.boards.length > 1 ? 0 : -1;
      btn.addEventListener('click', () => selectBoard(i));
      el.previewBoxes.append(btn);
    });
  }
  el.preview.addEventListener('load', drawPreviewBoxes);

  function fillBoardPicker() {
    el.boardPick.textContent = '';
    state.boards.forEach((b, i) => {
      const o = document.createElement('option');
      o.value = String(i);
      const conf = typeof b.confidence === 'number' ? `, ${t('pos.sure', { p: Math.round(b.confidence * 100) })}` : '';
      const where = b.page ? t('pos.pageDiagram', { page: b.page, n: b.index }) : t('pos.boardN', { n: i + 1 });
      o.textContent = `${where}${conf}`;
      el.boardPick.append(o);
    });
    el.boardPickRow.hidden = state.boards.length < 2;
  }
  el.boardPick.addEventListener('change', () => selectBoard(Number(el.boardPick.value)));

  function selectBoard(i) {
    const b = state.boards[i];
    if (!b) return;
    state.current = i;
    el.boardPick.value = String(i);
    analysisBoard.stopAnalysis(); // a new position: nothing runs until it is confirmed
    const pieces = parseBoardFen(b.boardFen || (b.fen || '').split(' ')[0]) || emptyBoard();
    state.confidence = new Array(64).fill(1);
    if (Array.isArray(b.squares)) {
      for (const s of b.squares) {
        if (!s || typeof s.square !== 'string' || !/^[a-h][1-8]$/.test(s.square)) continue;
        const idx = squareIndex(s.square);
        if (typeof s.confidence === 'number') state.confidence[idx] = s.confidence;
      }
    }
    state.pieces = pieces.slice();
    state.typed = null;
    state.recognised = pieces.slice();
    state.flipped = b.orientation === 'black';
    const stm = b.sideToMove === 'b' ? 'b' : 'w';
    (stm === 'b' ? el.stmB : el.stmW).checked = true;
    const fenCastling = (b.fen || '').split(' ')[2];
    setDefaultCastling(fenCastling && fenCastling !== '-' ? fenCastling : null);
    state.cursor = state.flipped ? 7 : 56; // bottom-left square as seen
    closePalette(false);
    el.result.hidden = false;
    renderInfo(b);
    renderBoard();
    drawPreviewBoxes();
    update();
    el.fen.value = currentFen(); // even while the FEN box has the focus
  }

  function renderInfo(b) {
    const parts = [];
    if (b.orientation) {
      const how = { given: 'info.asYouSet', coordinates: 'info.byCoordinates', 'other-boards': 'info.byOtherBoards', pieces: 'info.fromPieces' }[b.orientationSource];
      parts.push(t(b.orientation === 'black' ? 'info.seenBlack' : 'info.seenWhite') + (how ? ` (${t(how)})` : ''));
    }
    const source = { given: 'info.asYouSet', caption: 'info.fromCaption', highlight: 'info.fromHighlight', default: 'info.assumed' }[b.sideToMoveSource];
    parts.push(t(b.sideToMove === 'b' ? 'blackToMove' : 'whiteToMove') + (source ? ` (${t(source)})` : ''));
    if (typeof b.confidence === 'number') parts.push(t('info.confidence', { p: Math.round(b.confidence * 100) }));
    const unsure = state.confidence.filter((c) => c < UNCERTAIN).length;
    if (unsure) parts.push(t('info.uncertain', { n: unsure }));
    if (b.legal === false) parts.push(t('info.illegal'));
    plain(el.boardInfo, parts.join(' · '));
    el.warnings.textContent = '';
    for (const w of Array.isArray(b.warnings) ? b.warnings : []) {
      const li = document.createElement('li');
      li.textContent = typeof w === 'string' ? w : (w && (w.message || w.code)) || JSON.stringify(w);
      el.warnings.append(li);
    }
  }

  // ---------- FEN ----------

  function parseBoardFen(text) {
    const rows = String(text || '').trim().split('/');
    if (rows.length !== 8) return null;
    const out = [];
    for (const row of rows) {
      let n = 0;
      for (const ch of row) {
        if (/[1-8]/.test(ch)) { for (let k = 0; k < Number(ch); k++) out.push(null); n += Number(ch); }
        else if (/[KQRBNPkqrbnp]/.test(ch)) { out.push(ch); n += 1; }
        else return null;
      }
      if (n !== 8) return null;
    }
    return out;
  }

  function boardFen(pieces) {
    const rows = [];
    for (let r = 0; r < 8; r++) {
      let row = '', empty = 0;
      for (let f = 0; f < 8; f++) {
        const p = pieces[r * 8 + f];
        if (p) { if (empty) row += empty; empty = 0; row += p; } else empty++;
      }
      if (empty) row += empty;
      rows.push(row);
    }
    return rows.join('/');
  }

  // Which castling rights the pieces allow: king and rook on their home squares.
  function castlingPossible(pieces) {
    const at = (sq) => pieces[squareIndex(sq)];
    return {
      K: at('e1') === 'K' && at('h1') === 'R',
      Q: at('e1') === 'K' && at('a1') === 'R',
      k: at('e8') === 'k' && at('h8') === 'r',
      q: at('e8') === 'k' && at('a8') === 'r',
    };
  }

  function setDefaultCastling(given) {
    const possible = castlingPossible(state.pieces);
    for (const box of castleBoxes) {
      const c = box.dataset.castle;
      box.checked = possible[c] && (given ? given.includes(c) : true);
    }
  }

  function sideToMove() { return el.stmB.checked ? 'b' : 'w'; }

  function castlingField() {
    const possible = castlingPossible(state.pieces);
    let s = '';
    for (const c of ['K', 'Q', 'k', 'q']) {
      const box = castleBoxes.find((b) => b.dataset.castle === c);
      if (box.checked && possible[c]) s += c;
    }
    return s || '-';
  }

  function currentFen() {
    const placement = boardFen(state.pieces);
    const t = state.typed;
    // En passant holds only for the typed placement; the move counters stay with any edit.
    const ep = t && t.placement === placement ? t.ep : '-';
    return `${placement} ${sideToMove()} ${castlingField()} ${ep} ${t ? t.halfmove : 0} ${t ? t.fullmove : 1}`;
  }

  // The typed FEN's en passant square and move counters, where they are well formed.
  function typedCounters(fields) {
    const count = (f, min, fallback) => (/^\d{1,4}$/.test(f || '') && Number(f) >= min ? String(Number(f)) : fallback);
    return {
      placement: boardFen(parseBoardFen(fields[0])),
      ep: /^[a-h][36]$/.test(fields[3] || '') ? fields[3] : '-',
      halfmove: count(fields[4], 0, '0'),
      fullmove: count(fields[5], 1, '1'),
    };
  }

  // Rebuilds everything that depends on the position.
  function update() {
    const possible = castlingPossible(state.pieces);
    for (const box of castleBoxes) {
      box.disabled = !possible[box.dataset.castle];
      box.closest('label').classList.toggle('muted', box.disabled);
    }
    const fen = currentFen();
    if (document.activeElement !== el.fen) el.fen.value = fen;
    el.fen.classList.remove('invalid');
    const slug = fen.replace(/ /g, '_');
    el.lichessAnalysis.href = `https://lichess.org/analysis/${slug}`;
    el.lichessEditor.href = `https://lichess.org/editor/${slug}`;
    const changed = state.confirmedFen !== null && state.confirmedFen !== fen;
    if (changed) say(el.confirmNote, 'pos.changed'); else plain(el.confirmNote, '');
  }

  function applyFenText(text) {
    const fields = text.trim().split(/\s+/);
    const pieces = parseBoardFen(fields[0]);
    if (!pieces) { el.fen.classList.add('invalid'); el.fen.setAttribute('aria-invalid', 'true'); return false; }
    el.fen.removeAttribute('aria-invalid');
    state.pieces = pieces;
    state.typed = typedCounters(fields);
    state.recognised = pieces.slice(); // a typed position is taken as given
    state.confidence = new Array(64).fill(1);
    (fields[1] === 'b' ? el.stmB : el.stmW).checked = true;
    const possible = castlingPossible(pieces);
    const castling = fields[2] || '-';
    for (const box of castleBoxes) box.checked = possible[box.dataset.castle] && castling.includes(box.dataset.castle);
    el.result.hidden = false;
    renderBoard();
    el.fen.value = currentFen();
    update();
    return true;
  }
  function typedFen() {
    if (el.fen.value.trim() === currentFen()) return;
    if (applyFenText(el.fen.value)) {
      say(el.boardInfo, 'pos.typed');
      el.warnings.textContent = '';
    }
  }
  el.fen.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') { e.preventDefault(); typedFen(); }
  });
  el.fen.addEventListener('change', typedFen);
  el.fen.addEventListener('blur', () => { if (!el.fen.classList.contains('invalid')) el.fen.value = currentFen(); });

  el.copyFen.addEventListener('click', async () => {
    const fen = currentFen();
    let ok = false;
    try { await navigator.clipboard.writeText(fen); ok = true; } catch (_) {
      el.fen.value = fen;
      el.fen.select();
      try { ok = document.execCommand('copy'); } catch (_) { ok = false; }
    }
    say(el.copyFen, ok ? 'copied' : 'selectCopy');
    setTimeout(() => { say(el.copyFen, 'copy'); }, 1500);
  });

  // ---------- board ----------

  // Square index shown at display row/column, given the orientation.
  const shownAt = (row, col) => (state.flipped ? (7 - row) * 8 + (7 - col) : row * 8 + col);

  function renderBoard() {
    el.board.textContent = '';
    for (let row = 0; row < 8; row++) {
      const rowEl = document.createElement('div');
      rowEl.setAttribute('role', 'row');
      rowEl.style.display = 'contents';
      for (let col = 0; col < 8; col++) {
        const i = shownAt(row, col);
        const file = i % 8, rank = 8 - Math.floor(i / 8);
        const cell = document.createElement('div');
        cell.setAttribute('role', 'gridcell');
        cell.className = `sq ${(file + rank) % 2 === 0 ? 'light' : 'dark'}`;
        cell.dataset.square = squareName(i);
        cell.dataset.index = String(i);
        if (col === 0) cell.append(coord('rank', String(rank)));
        if (row === 7) cell.append(coord('file', FILES[file]));
        rowEl.append(cell);
        paintSquare(cell, i);
      }
      el.board.append(rowEl);
    }
    el.board.dataset.orientation = state.flipped ? 'black' : 'white';
    setCursor(state.cursor, false);
  }

  function paintSquare(cell, i) {
    const p = state.pieces[i];
    cell.querySelector('.piece')?.remove();
    if (p) cell.prepend(pieceSpan(p));
    cell.dataset.piece = p || '';
    const unsure = state.confidence[i] < UNCERTAIN && p === state.recognised[i];
    cell.classList.toggle('uncertain', unsure);
    cell.classList.toggle('edited', p !== state.recognised[i]);
    let label = `${squareName(i)}, ${pieceName(p)}`;
    if (unsure) label += `, ${t('sq.uncertain', { p: Math.round(state.confidence[i] * 100) })}`;
    if (p !== state.recognised[i]) label += `, ${t('sq.edited')}`;
    cell.setAttribute('aria-label', label);
    cell.title = unsure ? `${label}` : '';
  }

  const cellOf = (i) => el.board.querySelector(`[data-index="${i}"]`);

  function setCursor(i, focus = true) {
    state.cursor = i;
    for (const c of el.board.querySelectorAll('.sq')) {
      const on = Number(c.dataset.index) === i;
      c.tabIndex = on ? 0 : -1;
      c.classList.toggle('cursor', on);
    }
    if (focus) cellOf(i)?.focus();
  }

  function setPiece(i, p) {
    state.pieces[i] = p || null;
    const cell = cellOf(i);
    if (cell) paintSquare(cell, i);
    update();
  }

  el.board.addEventListener('click', (e) => {
    const cell = e.target.closest('.sq');
    if (!cell) return;
    const i = Number(cell.dataset.index);
    setCursor(i, false);
    openPalette(i);
  });

  el.board.addEventListener('keydown', (e) => {
    const cell = e.target.closest('.sq');
    if (!cell) return;
    const i = Number(cell.dataset.index);
    // Position as displayed.
    let row = Math.floor(i / 8), col = i % 8;
    if (state.flipped) { row = 7 - row; col = 7 - col; }
    const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };
    if (moves[e.key]) {
      e.preventDefault();
      const r = Math.min(7, Math.max(0, row + moves[e.key][0]));
      const c = Math.min(7, Math.max(0, col + moves[e.key][1]));
      setCursor(shownAt(r, c));
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      openPalette(i);
    } else if (/^[KQRBNPkqrbnp]$/.test(e.key)) {
      e.preventDefault();
      setPiece(i, e.key);
    } else if (e.key === 'Delete' || e.key === 'Backspace' || e.key === '-' || e.key === '0') {
      e.preventDefault();
      setPiece(i, null);
    }
  });

  // ---------- palette ----------

  (function buildPalette() {
    for (const p of PALETTE) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'pal';
      b.dataset.piece = p;
      b.append(pieceSpan(p));
      el.paletteGrid.append(b);
    }
    const empty = document.createElement('button');
    empty.type = 'button';
    empty.className = 'pal empty';
    empty.dataset.piece = '';
    empty.dataset.i18n = 'pal.empty';
    el.paletteGrid.append(empty);
    labelPalette();
  })();

  function labelPalette() {
    for (const b of el.paletteGrid.querySelectorAll('.pal[data-piece]')) {
      const p = b.dataset.piece;
      if (!p) { b.textContent = t('pal.empty'); continue; }
      b.setAttribute('aria-label', pieceName(p));
      b.title = t('pal.key', { name: pieceName(p), key: p });
    }
  }

  function openPalette(i) {
    state.editing = i;
    for (const c of el.board.querySelectorAll('.sq.selected')) c.classList.remove('selected');
    cellOf(i)?.classList.add('selected');
    plain(el.paletteTitle, t('pal.title', { square: squareName(i), name: pieceName(state.pieces[i]) }));
    const current = state.pieces[i] || '';
    let focusBtn = null;
    for (const b of el.paletteGrid.querySelectorAll('.pal')) {
      const on = b.dataset.piece === current;
      b.classList.toggle('current', on);
      b.setAttribute('aria-pressed', on ? 'true' : 'false');
      if (on) focusBtn = b;
    }
    el.palette.hidden = false;
    (focusBtn || el.paletteGrid.querySelector('.pal')).focus();
  }

  function closePalette(refocus = true) {
    if (state.editing === null) { el.palette.hidden = true; return; }
    const i = state.editing;
    state.editing = null;
    el.palette.hidden = true;
    cellOf(i)?.classList.remove('selected');
    if (refocus) setCursor(i);
  }

  el.paletteGrid.addEventListener('click', (e) => {
    const b = e.target.closest('.pal');
    if (!b || state.editing === null) return;
    setPiece(state.editing, b.dataset.piece || null);
    closePalette();
  });
  el.paletteClose.addEventListener('click', () => closePalette());
  el.palette.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') { e.preventDefault(); closePalette(); return; }
    if (/^[KQRBNPkqrbnp]$/.test(e.key) && state.editing !== null) {
      e.preventDefault(); setPiece(state.editing, e.key); closePalette(); return;
    }
    if (e.key === 'Delete' || e.key === 'Backspace') {
      e.preventDefault(); setPiece(state.editing, null); closePalette(); return;
    }
    // Arrow keys move within the palette grid (6 wide).
    const buttons = Array.from(el.paletteGrid.querySelectorAll('.pal'));
    const at = buttons.indexOf(document.activeElement);
    const step = { ArrowLeft: -1, ArrowRight: 1, ArrowUp: -6, ArrowDown: 6 }[e.key];
    if (at >= 0 && step) {
      e.preventDefault();
      buttons[Math.min(buttons.length - 1, Math.max(0, at + step))].focus();
    }
  });
  document.addEventListener('pointerdown', (e) => {
    if (state.editing !== null && !el.palette.contains(e.target) && !el.board.contains(e.target)) closePalette(false);
  });

  // ---------- controls ----------

  el.flip.addEventListener('click', () => {
    state.flipped = !state.flipped;
    closePalette(false);
    renderBoard();
    el.flip.setAttribute('aria-pressed', state.flipped ? 'true' : 'false');
  });
  el.stmW.addEventListener('change', update);
  el.stmB.addEventListener('change', update);
  for (const box of castleBoxes) box.addEventListener('change', update);

  // ---------- confirm: open the analysis board ----------

  // Opens the editor's position on the analysis board; resolves to whether it could.
  async function confirmPosition() {
    const fen = currentFen();
    state.confirmedFen = fen;
    update();
    // A board the library keeps gets the analysis of its position kept with it.
    const board = state.boards[state.current];
    const scan = board && board.scanId != null ? { scanId: board.scanId, scanBoard: board.scanBoard ?? 0 } : null;
    return analysisBoard.load(fen, { orientation: state.flipped ? 'black' : 'white', scan });
  }

  el.confirm.addEventListener('click', async () => {
    if (await confirmPosition()) {
      document.getElementById('analysis').scrollIntoView({ behavior: 'smooth', block: 'start' });
    }
  });

  // ---------- set up by hand ----------

  $('manual').addEventListener('click', () => {
    state.boards = [];
    el.boardPickRow.hidden = true;
    state.flipped = false;
    state.cursor = 56;
    applyFenText('rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1');
    say(el.boardInfo, 'pos.startHelp');
    el.warnings.textContent = '';
    el.result.scrollIntoView({ behavior: 'smooth', block: 'start' });
    setCursor(state.cursor);
  });

  // ---------- file input, drop, paste ----------

  el.fileInput.addEventListener('change', () => upload(el.fileInput.files[0]));

  const firstImage = (list) => Array.from(list || []).find((f) => f && (!f.type || f.type.startsWith('image/') || f.type === 'application/pdf')) || (list && list[0]);

  let dragDepth = 0;
  document.addEventListener('dragenter', (e) => { e.preventDefault(); dragDepth++; el.dropZone.classList.add('dragging'); });
  document.addEventListener('dragleave', () => { if (--dragDepth <= 0) { dragDepth = 0; el.dropZone.classList.remove('dragging'); } });
  document.addEventListener('dragover', (e) => { e.preventDefault(); });
  document.addEventListener('drop', (e) => {
    e.preventDefault();
    dragDepth = 0;
    el.dropZone.classList.remove('dragging');
    const file = firstImage(e.dataTransfer && e.dataTransfer.files);
    if (file) upload(file);
  });

  document.addEventListener('paste', (e) => {
    const items = Array.from((e.clipboardData && e.clipboardData.items) || []);
    const item = items.find((it) => it.kind === 'file' && it.type.startsWith('image/'));
    if (!item) return; // plain text pastes (e.g. into the FEN box) go through untouched
    e.preventDefault();
    upload(item.getAsFile());
  });

  // For library.js: the editor's position, the board it came from (with its
  // scanId when the library keeps it), and opening a kept board.
  // The language changed: what this script wrote from its words is written again.
  onLangChange(() => {
    labelPalette();
    if (!el.result.hidden) renderBoard();
    if (state.boards.length) {
      fillBoardPicker();
      el.boardPick.value = String(state.current);
      if (!el.boardInfo.dataset.i18n) renderInfo(state.boards[state.current]);
    }
    drawPreviewBoxes();
  });

  // Opens a position given as FEN (a shared link): the editor shows it as typed.
  function openFen(fen, { flipped = false } = {}) {
    state.boards = [];
    el.boardPickRow.hidden = true;
    state.flipped = flipped;
    if (!applyFenText(fen)) return false;
    say(el.boardInfo, 'pos.typed');
    el.warnings.textContent = '';
    return true;
  }

  // For library.js and share.js: the editor's position, the board it came from
  // (with its scanId when the library keeps it), opening a kept board, opening a
  // FEN, and confirming the editor's position onto the analysis board.
  window.boardscan = {
    fen: currentFen,
    board: () => state.boards[state.current] || null,
    flipped: () => state.flipped,
    open(board) { state.boards = [board]; fillBoardPicker(); selectBoard(0); el.result.scrollIntoView({ block: 'start' }); },
    openFen,
    confirm: () => confirmPosition(),
    analysisBoard,
  };
})();
