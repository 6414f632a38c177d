// The "Whole game" card: paste or drop a PGN, analyse every move through
// POST /api/v1/game/stream, and browse the game: an evaluation graph (click a
// point), the move list with grades (click a move), a board, and the keys
// ← → Home End anywhere in the card outside the text box.

import { ChessBoard } from './board.js?v={{asset-version}}';
import { readResponse } from './api.js?v={{asset-version}}';

const GLYPH = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const WORD = { best: 'Best move', good: 'Good move', inaccuracy: 'Inaccuracy', mistake: 'Mistake', blunder: 'Blunder' };
const SVG = 'http://www.w3.org/2000/svg';

// White's win chance in percent, lichess's curve (as the server grades).
function whiteWin(ev) {
  if (!ev) return 50;
  if (ev.mate === 0) return ev.wdl && ev.wdl[0] === 1000 ? 100 : 0;
  if (typeof ev.mate === 'number') return ev.mate > 0 ? 100 : 0;
  const cp = Math.max(-1000, Math.min(1000, ev.cp || 0));
  return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * cp)) - 1);
}

function evalText(ev) {
  if (!ev) return '';
  if (ev.mate === 0) return 'checkmate';
  if (typeof ev.mate === 'number') return `#${ev.mate}`;
  const cp = ev.cp || 0;
  return `${cp > 0 ? '+' : ''}${(cp / 100).toFixed(2)}`;
}

const $ = (id) => document.getElementById(id);

class GameView {
  constructor() {
    this.card = $('game-card');
    if (!this.card) return;
    this.text = $('game-pgn');
    this.status = $('game-status');
    this.error = $('game-error');
    this.view = $('game-view');
    this.list = $('game-moves');
    this.graph = $('game-graph');
    this.board = new ChessBoard($('game-board'), { onMove: () => {} });
    this.reset();
    $('game-analyse').addEventListener('click', () => this.analyse());
    $('game-stop').addEventListener('click', () => this.abort && this.abort.abort());
    $('game-file').addEventListener('change', (e) => this.load(e.target.files[0]));
    $('game-first').addEventListener('click', () => this.go(0));
    $('game-prev').addEventListener('click', () => this.go(this.ply - 1));
    $('game-next').addEventListener('click', () => this.go(this.ply + 1));
    $('game-last').addEventListener('click', () => this.go(this.moves.length));
    $('game-flip').addEventListener('click', () => this.board.flip());
    this.text.addEventListener('dragover', (e) => e.preventDefault());
    this.text.addEventListener('drop', (e) => {
      const file = e.dataTransfer && e.dataTransfer.files[0];
      if (file) { e.preventDefault(); this.load(file); }
    });
    // Capture: the keys browse the game even when the board has the focus.
    this.card.addEventListener('keydown', (e) => this.key(e), true);
    this.graph.addEventListener('click', (e) => this.graphClick(e));
  }

  reset() {
    this.moves = [];
    this.startFen = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
    this.startEval = null;
    this.plies = 0;
    this.ply = 0;
    this.list.textContent = '';
    this.graph.textContent = '';
    $('game-summary').textContent = '';
    $('game-comment').textContent = '';
    $('game-download').hidden = true;
  }

  async load(file) {
    if (!file) return;
    if (file.size > 1024 * 1024) { this.fail('The file is over 1 MiB; the service analyses PGNs up to 1 MiB.'); return; }
    this.text.value = await file.text();
  }

  fail(message, code) {
    this.error.textContent = code ? `${message} (${code})` : message;
    this.error.hidden = false;
  }

  async analyse() {
    this.error.hidden = true;
    if (this.abort) this.abort.abort();
    this.reset();
    this.view.hidden = false;
    const body = { pgn: this.text.value };
    const movetime = $('game-movetime').value;
    if (movetime) body.movetimeMs = Number(movetime);
    const lang = $('lang');
    if (lang && lang.value) body.lang = lang.value;
    const notation = $('notation');
    if (notation && notation.value) body.notation = notation.value;
    this.abort = new AbortController();
    $('game-stop').hidden = false;
    $('game-analyse').disabled = true;
    this.status.textContent = 'Analysing…';
    try {
      const res = await fetch('/api/v1/game/stream', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
        signal: this.abort.signal,
      });
      if (!res.ok) {
        const answer = await readResponse(res);
        this.fail(answer.message, answer.code);
        this.status.textContent = '';
        return;
      }
      await this.read(res.body.getReader());
    } catch (e) {
      if (e && e.name === 'AbortError') this.status.textContent = `Stopped after ${this.moves.length} of ${this.plies} plies.`;
      else this.fail(`Could not reach the server: ${e.message}`);
    } finally {
      $('game-stop').hidden = true;
      $('game-analyse').disabled = false;
      this.abort = null;
    }
  }

  // Reads Server-Sent Events from the stream.
  async read(reader) {
    const decoder = new TextDecoder();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      buffer += decoder.decode(value, { stream: true });
      let cut;
      while ((cut = buffer.indexOf('\n\n')) >= 0) {
        const block = buffer.slice(0, cut);
        buffer = buffer.slice(cut + 2);
        let name = 'message', data = '';
        for (const line of block.split('\n')) {
          if (line.startsWith('event: ')) name = line.slice(7);
          else if (line.startsWith('data: ')) data += line.slice(6);
        }
        if (data) this.event(name, JSON.parse(data));
      }
    }
  }

  event(name, data) {
    if (name === 'start') {
      this.startFen = data.startFen;
      this.startEval = null;
      this.plies = data.plies;
      this.go(0);
    } else if (name === 'move') {
      this.moves.push(data);
      this.addMove(data);
      this.drawGraph();
      this.status.textContent = `Analysing… ${this.moves.length} of ${this.plies} plies`;
      if (this.ply === this.moves.length - 1) this.go(this.moves.length);
    } else if (name === 'done') {
      this.startEval = data.start;
      this.moves = data.moves;
      this.drawGraph();
      this.summary(data);
      this.status.textContent = data.complete ? 'Done.' : 'Stopped early.';
      const link = $('game-download');
      link.href = URL.createObjectURL(new Blob([data.annotatedPgn], { type: 'application/x-chess-pgn' }));
      link.hidden = false;
    } else if (name === 'error') {
      this.fail(data.error, data.code);
      this.status.textContent = '';
    }
  }

  addMove(m) {
    if (m.side === 'white' || this.list.childElementCount === 0) {
      const n = document.createElement('span');
      n.className = 'game-number muted';
      n.textContent = m.moveNumber;
      this.list.append(n);
    }
    const b = document.createElement('button');
    b.type = 'button';
    b.className = `game-move grade-${m.grade}`;
    b.dataset.ply = m.ply;
    b.dataset.testid = 'game-move';
    b.textContent = m.move.san + (GLYPH[m.grade] || '');
    b.title = `${WORD[m.grade]} (${evalText(m.after)})`;
    b.addEventListener('click', () => this.go(m.ply));
    this.list.append(b);
  }

  summary(data) {
    const side = (name, s) => `${name}: accuracy ${s.accuracy ?? '–'}%, ${s.inaccuracies} inaccuracies, ${s.mistakes} mistakes, ${s.blunders} blunders, ACPL ${s.acpl}`;
    const opening = data.opening ? `${data.opening.eco} ${data.opening.name} (leaves the book after ply ${data.opening.ply}). ` : '';
    $('game-summary').textContent = `${opening}${side('White', data.white)}. ${side('Black', data.black)}.`;
  }

  go(ply) {
    this.ply = Math.max(0, Math.min(ply, this.moves.length));
    const m = this.moves[this.ply - 1];
    const fen = m ? m.fen : this.startFen;
    this.board.setPosition(fen, m ? { lastMove: { from: m.move.uci.slice(0, 2), to: m.move.uci.slice(2, 4) } } : {});
    const next = this.moves[this.ply];
    this.board.setArrows(next ? [{ from: next.best.uci.slice(0, 2), to: next.best.uci.slice(2, 4), kind: 'best' }] : []);
    for (const b of this.list.querySelectorAll('.game-move')) b.classList.toggle('current', Number(b.dataset.ply) === this.ply);
    const comment = $('game-comment');
    if (m) {
      const better = m.grade in GLYPH ? ` ${m.best.san} was best: ${m.bestLine.join(' ')}` : '';
      comment.textContent = `${m.moveNumber} ${m.move.san}: ${WORD[m.grade]}, ${evalText(m.after)}.${better}`;
    } else {
      comment.textContent = '';
    }
    this.drawCursor();
  }

  key(e) {
    const t = e.target;
    if (t && (t.tagName === 'TEXTAREA' || t.tagName === 'SELECT' || t.tagName === 'INPUT')) return;
    const moves = { ArrowLeft: this.ply - 1, ArrowRight: this.ply + 1, Home: 0, End: this.moves.length };
    if (!(e.key in moves) || this.view.hidden) return;
    e.preventDefault();
    e.stopPropagation();
    this.go(moves[e.key]);
  }

  // The graph: White's win chance after each ply (x), 0–100 (y, White up).
  drawGraph() {
    const n = Math.max(this.plies, this.moves.length, 1);
    this.graph.setAttribute('viewBox', `0 0 ${n} 100`);
    this.graph.setAttribute('preserveAspectRatio', 'none');
    const points = [[0, 100 - whiteWin(this.startEval || (this.moves[0] && this.moves[0].before))]];
    this.moves.forEach((m, i) => points.push([i + 1, 100 - whiteWin(m.after)]));
    const line = points.map(([x, y]) => `${x},${y.toFixed(1)}`).join(' ');
    this.graph.innerHTML = '';
    const area = document.createElementNS(SVG, 'polygon');
    area.setAttribute('points', `0,100 ${line} ${points.length - 1},100`);
    area.setAttribute('class', 'graph-white');
    const mid = document.createElementNS(SVG, 'line');
    mid.setAttribute('x1', 0); mid.setAttribute('x2', n); mid.setAttribute('y1', 50); mid.setAttribute('y2', 50);
    mid.setAttribute('class', 'graph-mid');
    const path = document.createElementNS(SVG, 'polyline');
    path.setAttribute('points', line);
    path.setAttribute('class', 'graph-line');
    this.graph.append(area, mid, path);
    this.moves.forEach((m, i) => {
      if (!(m.grade in GLYPH)) return;
      const mark = document.createElementNS(SVG, 'line');
      mark.setAttribute('x1', i + 1); mark.setAttribute('x2', i + 1);
      mark.setAttribute('y1', 0); mark.setAttribute('y2', 100);
      mark.setAttribute('class', `graph-mark grade-${m.grade}`);
      this.graph.append(mark);
    });
    this.cursor = document.createElementNS(SVG, 'line');
    this.cursor.setAttribute('class', 'graph-cursor');
    this.graph.append(this.cursor);
    this.drawCursor();
  }

  drawCursor() {
    if (!this.cursor) return;
    this.cursor.setAttribute('x1', this.ply); this.cursor.setAttribute('x2', this.ply);
    this.cursor.setAttribute('y1', 0); this.cursor.setAttribute('y2', 100);
  }

  graphClick(e) {
    const box = this.graph.getBoundingClientRect();
    const n = Math.max(this.plies, this.moves.length, 1);
    this.go(Math.round(((e.clientX - box.left) / box.width) * n));
  }
}

new GameView();
