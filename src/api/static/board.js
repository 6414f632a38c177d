// The analysis board: draws a position, lets the user move pieces (click a piece
// then a square, or drag it; keyboard: arrows + Enter), and draws arrows and marked
// squares over it. It knows no chess rules: whoever owns it passes the legal moves.

const FILES = 'abcdefgh';
const GLYPH = { k: '\u265A', q: '\u265B', r: '\u265C', b: '\u265D', n: '\u265E', p: '\u265F' };
import { t } from './i18n.js?v={{asset-version}}';

const SVG = 'http://www.w3.org/2000/svg';
const DRAG_START_PX = 5;

const isWhite = (p) => p === p.toUpperCase();
// "White king", in the page's language; "empty" for no piece.
export const pieceName = (p) => t(p ? `piece.${isWhite(p) ? 'w' : 'b'}${p.toLowerCase()}` : 'piece.empty');

export function pieceSpan(p) {
  const s = document.createElement('span');
  s.className = `piece ${isWhite(p) ? 'white' : 'black'}`;
  s.textContent = GLYPH[p.toLowerCase()] + '\uFE0E';
  s.setAttribute('aria-hidden', 'true');
  return s;
}

// Pieces of a FEN's board part by square name ("e4" → "P").
function piecesOf(fen) {
  const out = {};
  String(fen).split(' ')[0].split('/').forEach((row, r) => {
    let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) f += Number(ch);
      else { out[FILES[f] + (8 - r)] = ch; f += 1; }
    }
  });
  return out;
}

export class ChessBoard {
  // `onMove({from, to, promotion?})` is called for a move among the legal ones given to `setMovable`.
  constructor(root, { onMove }) {
    this.root = root;
    this.onMove = onMove;
    this.orientation = 'white';
    this.pieces = {};
    this.lastMove = null;
    this.check = null;
    this.dests = new Map(); // from → [to...]
    this.promotions = new Set(); // "e7e8" where a pawn promotes
    this.selected = null;
    this.cursor = 'e2';
    this.arrowList = [];
    this.markList = [];
    this.drag = null;
    this.build();
  }

  build() {
    this.root.classList.add('play-board');
    this.grid = document.createElement('div');
    this.grid.className = 'board';
    this.grid.setAttribute('role', 'grid');
    this.grid.dataset.i18nAttr = 'aria-label=board.label';
    this.grid.setAttribute('aria-label', t('board.label'));
    this.svg = document.createElementNS(SVG, 'svg');
    this.svg.setAttribute('viewBox', '0 0 8 8');
    this.svg.setAttribute('class', 'arrows');
    this.svg.setAttribute('aria-hidden', 'true');
    this.svg.innerHTML = ['best', 'second', 'hint', 'threat'].map((k) =>
      `<marker id="ah-${k}" class="head ${k}" viewBox="0 0 10 10" refX="5" refY="5" markerWidth="3" markerHeight="3" orient="auto"><path d="M0,0 L10,5 L0,10 z"/></marker>`).join('');
    this.promo = document.createElement('div');
    this.promo.className = 'promotion';
    this.promo.hidden = true;
    this.root.append(this.grid, this.svg, this.promo);
    this.grid.addEventListener('pointerdown', (e) => this.pointerDown(e));
    this.grid.addEventListener('pointermove', (e) => this.pointerMove(e));
    this.grid.addEventListener('pointerup', (e) => this.pointerUp(e));
    this.grid.addEventListener('pointercancel', () => this.endDrag());
    this.grid.addEventListener('keydown', (e) => this.keyDown(e));
    this.render();
  }

  // The position: a FEN, the last move (to highlight) and the checked king's square.
  setPosition(fen, { lastMove = null, check = null } = {}) {
    this.pieces = piecesOf(fen);
    this.lastMove = lastMove;
    this.check = check;
    this.selected = null;
    this.promo.hidden = true;
    this.render();
  }

  // Legal moves the user may make now: an array of `{from, to, promotion?}`; empty for none.
  setMovable(moves) {
    this.dests = new Map();
    this.promotions = new Set();
    for (const m of moves) {
      if (!this.dests.has(m.from)) this.dests.set(m.from, []);
      const list = this.dests.get(m.from);
      if (!list.includes(m.to)) list.push(m.to);
      if (m.promotion) this.promotions.add(m.from + m.to);
    }
    if (this.selected && !this.dests.has(this.selected)) this.selected = null;
    this.render();
  }

  flip() {
    this.orientation = this.orientation === 'white' ? 'black' : 'white';
    this.render();
  }

  setOrientation(side) {
    this.orientation = side === 'black' ? 'black' : 'white';
    this.render();
  }

  // Arrows: `[{from, to, kind: 'best'|'second'|'hint'|'threat'}]`.
  setArrows(list) { this.arrowList = list.filter((a) => a && /^[a-h][1-8]$/.test(a.from) && /^[a-h][1-8]$/.test(a.to)); this.drawArrows(); }

  // Marked squares: `[{square, kind}]`, e.g. the piece a hint points at.
  setMarks(list) { this.markList = list; this.render(); }

  // Display row/column of a square for the current orientation.
  place(square) {
    const f = FILES.indexOf(square[0]), r = Number(square[1]);
    return this.orientation === 'white' ? { row: 8 - r, col: f } : { row: r - 1, col: 7 - f };
  }

  squareAt(row, col) {
    return this.orientation === 'white' ? FILES[col] + (8 - row) : FILES[7 - col] + (row + 1);
  }

  render() {
    const focused = this.grid.contains(document.activeElement);
    this.grid.textContent = '';
    const targets = this.selected ? this.dests.get(this.selected) || [] : [];
    for (let row = 0; row < 8; row++) {
      const rowEl = document.createElement('div');
      rowEl.setAttribute('role', 'row');
      rowEl.style.display = 'contents';
      for (let col = 0; col < 8; col++) {
        const sq = this.squareAt(row, col);
        const file = FILES.indexOf(sq[0]), rank = Number(sq[1]);
        const cell = document.createElement('div');
        cell.setAttribute('role', 'gridcell');
        cell.className = `sq ${(file + rank) % 2 === 0 ? 'light' : 'dark'}`;
        cell.dataset.square = sq;
        const p = this.pieces[sq];
        cell.dataset.piece = p || '';
        if (p) cell.append(pieceSpan(p));
        if (col === 0) cell.append(coord('rank', String(rank)));
        if (row === 7) cell.append(coord('file', sq[0]));
        const flags = [];
        if (this.lastMove && (this.lastMove.from === sq || this.lastMove.to === sq)) cell.classList.add('last-move');
        if (this.check === sq) { cell.classList.add('in-check'); flags.push(t('sq.inCheck')); }
        if (this.selected === sq) { cell.classList.add('selected'); flags.push(t('sq.selected')); }
        if (this.dests.has(sq)) cell.classList.add('movable');
        if (targets.includes(sq)) { cell.classList.add('dest'); if (p) cell.classList.add('occupied'); flags.push(t('sq.legalMove')); }
        for (const m of this.markList) if (m.square === sq) { cell.classList.add(`mark-${m.kind}`); flags.push(m.label || m.kind); }
        cell.tabIndex = sq === this.cursor ? 0 : -1;
        if (sq === this.cursor) cell.classList.add('cursor');
        cell.setAttribute('aria-label', [`${sq}, ${pieceName(p)}`, ...flags].join(', '));
        rowEl.append(cell);
      }
      this.grid.append(rowEl);
    }
    this.root.dataset.orientation = this.orientation;
    if (focused) this.cell(this.cursor)?.focus();
    this.drawArrows();
  }

  cell(sq) { return this.grid.querySelector(`[data-square="${sq}"]`); }

  drawArrows() {
    for (const g of this.svg.querySelectorAll('line')) g.remove();
    for (const a of this.arrowList) {
      const p = this.place(a.from), q = this.place(a.to);
      const x1 = p.col + 0.5, y1 = p.row + 0.5, x2 = q.col + 0.5, y2 = q.row + 0.5;
      const len = Math.hypot(x2 - x1, y2 - y1) || 1;
      const shorten = 0.35; // leave room for the head inside the target square
      const line = document.createElementNS(SVG, 'line');
      line.setAttribute('x1', x1); line.setAttribute('y1', y1);
      line.setAttribute('x2', x2 - ((x2 - x1) / len) * shorten);
      line.setAttribute('y2', y2 - ((y2 - y1) / len) * shorten);
      line.setAttribute('class', `arrow ${a.kind}`);
      line.setAttribute('marker-end', `url(#ah-${a.kind})`);
      line.dataset.move = a.from + a.to;
      this.svg.append(line);
    }
  }

  // ---------- moving ----------

  clickSquare(sq) {
    this.cursor = sq;
    if (this.selected && (this.dests.get(this.selected) || []).includes(sq)) {
      this.tryMove(this.selected, sq);
    } else if (this.dests.has(sq) && this.selected !== sq) {
      this.selected = sq;
      this.render();
    } else {
      this.selected = null;
      this.render();
    }
  }

  tryMove(from, to) {
    this.selected = null;
    if (!(this.dests.get(from) || []).includes(to)) { this.render(); return; }
    if (this.promotions.has(from + to)) { this.askPromotion(from, to); return; }
    this.onMove({ from, to });
  }

  askPromotion(from, to) {
    const white = isWhite(this.pieces[from] || 'P');
    this.promo.textContent = '';
    const title = document.createElement('p');
    title.textContent = t('board.promoteTo');
    this.promo.append(title);
    for (const k of ['q', 'r', 'b', 'n']) {
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'pal';
      b.dataset.promotion = k;
      b.setAttribute('aria-label', pieceName(white ? k.toUpperCase() : k));
      b.append(pieceSpan(white ? k.toUpperCase() : k));
      b.addEventListener('click', () => { this.promo.hidden = true; this.onMove({ from, to, promotion: k }); });
      this.promo.append(b);
    }
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'button';
    cancel.textContent = t('cancel');
    cancel.addEventListener('click', () => { this.promo.hidden = true; this.render(); });
    this.promo.append(cancel);
    this.promo.hidden = false;
    this.promo.querySelector('button').focus();
  }

  pointerDown(e) {
    if (e.button !== 0) return;
    const cell = e.target.closest('.sq');
    if (!cell) return;
    const sq = cell.dataset.square;
    this.drag = { from: sq, x: e.clientX, y: e.clientY, moving: false, ghost: null, id: e.pointerId };
    if (this.dests.has(sq)) {
      e.preventDefault();
      this.grid.setPointerCapture?.(e.pointerId);
    }
  }

  pointerMove(e) {
    const d = this.drag;
    if (!d || d.id !== e.pointerId || !this.dests.has(d.from)) return;
    if (!d.moving && Math.hypot(e.clientX - d.x, e.clientY - d.y) < DRAG_START_PX) return;
    if (!d.moving) {
      d.moving = true;
      this.selected = d.from;
      this.render();
      const size = this.cell(d.from).getBoundingClientRect().width;
      d.ghost = pieceSpan(this.pieces[d.from]);
      d.ghost.classList.add('ghost');
      d.ghost.style.fontSize = `${size * 0.8}px`;
      document.body.append(d.ghost);
      this.cell(d.from).classList.add('drag-origin');
    }
    d.ghost.style.left = `${e.clientX}px`;
    d.ghost.style.top = `${e.clientY}px`;
  }

  pointerUp(e) {
    const d = this.drag;
    if (!d || d.id !== e.pointerId) return;
    this.endDrag();
    if (!d.moving) { this.clickSquare(d.from); this.cell(d.from)?.focus({ preventScroll: true }); return; }
    const under = document.elementFromPoint(e.clientX, e.clientY);
    const target = under && under.closest && under.closest('.sq');
    if (target && this.grid.contains(target) && target.dataset.square !== d.from) {
      this.cursor = target.dataset.square;
      this.tryMove(d.from, target.dataset.square);
    } else {
      this.render();
    }
  }

  endDrag() {
    if (this.drag && this.drag.ghost) this.drag.ghost.remove();
    this.drag = null;
  }

  keyDown(e) {
    const cell = e.target.closest('.sq');
    if (!cell) return;
    const { row, col } = this.place(cell.dataset.square);
    const step = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] }[e.key];
    if (step) {
      e.preventDefault();
      const r = Math.min(7, Math.max(0, row + step[0])), c = Math.min(7, Math.max(0, col + step[1]));
      this.cursor = this.squareAt(r, c);
      for (const s of this.grid.querySelectorAll('.sq')) {
        const on = s.dataset.square === this.cursor;
        s.tabIndex = on ? 0 : -1;
        s.classList.toggle('cursor', on);
      }
      this.cell(this.cursor).focus();
    } else if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      this.clickSquare(cell.dataset.square);
    } else if (e.key === 'Escape' && this.selected) {
      e.preventDefault();
      this.selected = null;
      this.render();
    }
  }
}

// A coordinate label (file letter or rank digit) inside an edge square.
export function coord(kind, text) {
  const s = document.createElement('span');
  s.className = `coord ${kind}`;
  s.textContent = text;
  s.setAttribute('aria-hidden', 'true');
  return s;
}
