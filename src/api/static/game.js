// The "Whole game" card: paste or drop a PGN, analyse every move through
// POST /api/v1/game/stream, and browse the game: an evaluation graph (click a
// point), the move list with grades (click a move), a board, and the keys
// ← → Home End anywhere in the card outside the text box.

import { Chess } from './vendor/chess.js?v={{asset-version}}';
import { ChessBoard } from './board.js?v={{asset-version}}';
import { readResponse } from './api.js?v={{asset-version}}';
import { gradeName } from './coach.js?v={{asset-version}}';
import { currentLang, onLangChange, plain, say, t } from './i18n.js?v={{asset-version}}';

const GLYPH = { inaccuracy: '?!', mistake: '?', blunder: '??' };
const START = 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1';
const SVG = 'http://www.w3.org/2000/svg';

// White's win chance in percent, lichess's curve (as the server grades).
// Whether a file is a recording (an animated GIF, a video) rather than PGN
// text: by its first bytes, as the service tells them.
async function isRecording(file) {
  const head = new Uint8Array(await file.slice(0, 12).arrayBuffer());
  const text = String.fromCharCode(...head);
  return text.startsWith('GIF8') || text.slice(4, 8) === 'ftyp'
    || (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3)
    || (text.startsWith('RIFF') && text.slice(8, 12) === 'AVI ');
}

function whiteWin(ev) {
  if (!ev) return 50;
  if (ev.mate === 0) return ev.wdl && ev.wdl[0] === 1000 ? 100 : 0;
  if (typeof ev.mate === 'number') return ev.mate > 0 ? 100 : 0;
  const cp = Math.max(-1000, Math.min(1000, ev.cp || 0));
  return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * cp)) - 1);
}

function evalText(ev) {
  if (!ev) return '';
  if (ev.mate === 0) return t('game.checkmate');
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
    onLangChange(() => this.languageChanged());
  }

  // The page's language changed: the moves' titles, the summary and the comment are written again.
  languageChanged() {
    this.board.render();
    if (!this.moves.length) return;
    this.list.textContent = '';
    for (const m of this.moves) this.addMove(m);
    if (this.done) this.summary(this.done);
    this.go(this.ply);
  }

  // The game as a shared link holds it: start position, moves (UCI) and the ply shown.
  shareState() {
    if (!this.moves.length) return null;
    return { fen: this.startFen, moves: this.moves.map((m) => m.move.uci), ply: this.ply };
  }

  // Opens a shared game: writes its PGN into the box and analyses it; resolves when done.
  async open(fen, moves, ply) {
    const chess = new Chess(fen || START);
    for (const uci of moves) {
      try { chess.move({ from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] }); } catch (_) { break; }
    }
    this.text.value = chess.pgn();
    this.card.scrollIntoView({ block: 'start' });
    await this.analyse();
    if (ply != null) this.go(ply);
  }

  reset() {
    this.moves = [];
    this.startFen = START;
    this.done = null;
    this.startEval = null;
    this.plies = 0;
    this.ply = 0;
    this.list.textContent = '';
    this.graph.textContent = '';
    $('game-summary').textContent = '';
    $('game-comment').textContent = '';
    $('game-download').hidden = true;
    $('game-link').hidden = true;
  }

  async load(file) {
    if (!file) return;
    this.error.hidden = true;
    if (await isRecording(file)) { await this.readRecording(file); return; }
    if (file.size > 1024 * 1024) { this.fail(t('game.tooBig')); return; }
    this.text.value = await file.text();
  }

  // A recording (GIF, video): the service reads its moves, their PGN goes
  // into the box, and the game is analysed.
  async readRecording(file) {
    say(this.status, 'game.readingRecording');
    $('game-analyse').disabled = true;
    let reply;
    try {
      reply = await readResponse(await fetch('/api/v1/game/recording', {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream' },
        body: file,
      }));
    } catch (e) {
      reply = { ok: false, message: t('err.unreachable', { message: e.message }) };
    } finally {
      $('game-analyse').disabled = false;
    }
    if (!reply.ok) { this.status.textContent = ''; this.fail(reply.message, reply.code); return; }
    const games = reply.body.games;
    this.text.value = games.map((g) => g.pgn).join('\n');
    const first = games[0];
    say(this.status, 'game.recordingRead', { moves: first.uci.length, positions: reply.body.positions });
    // The first stretch of play is analysed; the rest stay in the box.
    const kept = this.text.value;
    this.text.value = first.pgn;
    await this.analyse();
    this.text.value = kept;
    if (games.length > 1) this.fail(t('game.recordingSplit', { games: games.length }));
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
    say(this.status, 'game.analysing');
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
        plain(this.status, '');
        return;
      }
      await this.read(res.body.getReader());
    } catch (e) {
      if (e && e.name === 'AbortError') say(this.status, 'game.stoppedAfter', { done: this.moves.length, n: this.plies });
      else this.fail(t('err.unreachable', { message: e.message }));
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
      say(this.status, 'game.progress', { done: this.moves.length, n: this.plies });
      if (this.ply === this.moves.length - 1) this.go(this.moves.length);
    } else if (name === 'done') {
      this.startEval = data.start;
      this.moves = data.moves;
      this.done = data;
      this.drawGraph();
      this.summary(data);
      say(this.status, data.complete ? 'game.done' : 'game.stoppedEarly');
      const link = $('game-download');
      if (link.href.startsWith('blob:')) URL.revokeObjectURL(link.href);
      link.href = URL.createObjectURL(new Blob([data.annotatedPgn], { type: 'application/x-chess-pgn' }));
      link.hidden = false;
      $('game-link').hidden = false;
      this.card.dispatchEvent(new CustomEvent('game-done', { bubbles: true }));
    } else if (name === 'error') {
      this.fail(data.error, data.code);
      plain(this.status, '');
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
    b.title = `${gradeName(m.grade)} (${evalText(m.after)})`;
    b.addEventListener('click', () => this.go(m.ply));
    this.list.append(b);
  }

  summary(data) {
    const number = new Intl.NumberFormat(currentLang(), { maximumFractionDigits: 1 });
    const side = (name, s) => t('game.side', {
      side: t(name), accuracy: typeof s.accuracy === 'number' ? number.format(s.accuracy) : '–', inaccuracies: s.inaccuracies, mistakes: s.mistakes, blunders: s.blunders, acpl: typeof s.acpl === 'number' ? number.format(s.acpl) : s.acpl,
    });
    const opening = data.opening ? `${t('game.opening', { eco: data.opening.eco, name: data.opening.name, ply: data.opening.ply })} ` : '';
    $('game-summary').textContent = `${opening}${side('white', data.white)}. ${side('black', data.black)}.`;
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
      const better = m.grade in GLYPH ? ` ${t('game.better', { move: m.best.san, line: m.bestLine.join(' ') })}` : '';
      comment.textContent = `${t('game.comment', { number: m.moveNumber, move: m.move.san, grade: gradeName(m.grade), eval: evalText(m.after) })}${better}`;
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

export const gameView = new GameView();
