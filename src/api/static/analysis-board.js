// The analysis board: the confirmed (scanned) position on a board the user can make
// moves on, with live engine lines for each position reached, the best move as an
// arrow, a move list with a way back to the scanned position, hints, grades of the
// user's moves, and playing the position out against the engine.

import { Chess } from './vendor/chess.js?v={{asset-version}}';
import { clearError, features, getJson, showError } from './api.js?v={{asset-version}}';
import { ChessBoard } from './board.js?v={{asset-version}}';
import { MoveLine } from './line.js?v={{asset-version}}';
import { EngineRun, formatScore, whiteShare } from './analysis.js?v={{asset-version}}';
import { Game, grade, hint, showGrade } from './coach.js?v={{asset-version}}';
import { currentLang, onLangChange, t } from './i18n.js?v={{asset-version}}';

const $ = (id) => document.getElementById(id);

// The checked king's square, if the side to move is in check.
function checkSquare(chess) {
  if (!chess.inCheck()) return null;
  for (const row of chess.board()) {
    for (const p of row) if (p && p.type === 'k' && p.color === chess.turn()) return p.square;
  }
  return null;
}

// Why the game is over at `chess`, if it is; `repeated`: times this position occurred.
function gameOverText(chess, repeated) {
  if (chess.isCheckmate()) return t(chess.turn() === 'w' ? 'over.mateBlack' : 'over.mateWhite');
  if (chess.isStalemate()) return t('over.stalemate');
  if (chess.isInsufficientMaterial()) return t('over.material');
  if (repeated >= 3) return t('over.repetition');
  if (chess.isDraw()) return t('over.fifty');
  return null;
}

// A move-list entry for chess.js's verbose move `mv` from `before` to `after`, made `by` the user or the engine.
const plyEntry = (mv, before, after, by) => ({
  san: mv.san, uci: mv.lan, from: mv.from, to: mv.to, color: mv.color, piece: mv.piece,
  captured: mv.captured, promotion: mv.promotion, fenBefore: before, fenAfter: after, by,
});

// A position for repetition: pieces, side to move, castling and en passant.
const positionKey = (fen) => fen.split(' ').slice(0, 4).join(' ');

export class AnalysisBoard {
  constructor() {
    this.section = $('analysis');
    this.el = {
      error: $('ab-error'), note: $('ab-note'), fen: $('ab-fen'), analyse: $('analyse'), stop: $('stop'),
      engine1: $('engine-1'), engine2: $('engine-2'), engineRow: $('engine-row'), movetime: $('movetime'),
      multiPv: $('multipv'), lang: $('lang'), notation: $('notation'), langRow: $('lang-row'),
      evalBar: $('eval-bar'), evalWhite: $('eval-white'), evalLabel: $('eval-label'),
      back: $('back-to-scan'), first: $('nav-first'), prev: $('nav-prev'), next: $('nav-next'), last: $('nav-last'),
      flip: $('ab-flip'), grade: $('grade'), coach: $('coach'), hintLevel: $('hint-level'), hint: $('hint'),
      threat: $('threat'), hintText: $('hint-text'), play: $('play'), playLevel: $('play-level'),
      playClock: $('play-clock'), playMinutes: $('play-minutes'), playIncrement: $('play-increment'),
      playStart: $('play-start'), playWatch: $('play-watch'), playStop: $('play-stop'), playStatus: $('play-status'),
    };
    this.features = { stream: false, engines: false, hint: false, grade: false, play: false, lang: false, engineField: false };
    this.analysing = false;
    this.hintMarks = null; // {marks, arrows, fen}
    this.best = [null, null];
    this.board = new ChessBoard($('ab-board'), { onMove: (m) => this.userMove(m) });
    this.line = new MoveLine($('move-list'), { onSelect: (ply) => { if (!this.game.active) this.goTo(ply); } });
    const panels = [$('engine-panel-1'), $('engine-panel-2')];
    this.runs = panels.map((panel, k) => new EngineRun(panel, {
      onUpdate: (a, fen, final) => this.engineUpdate(k, a, fen, final),
      onState: () => this.updateButtons(),
      onPlayLine: (uci) => this.playLine(uci),
    }));
    this.game = new Game({
      clocks: { w: $('clock-w'), b: $('clock-b') },
      status: this.el.playStatus,
      onEngineMove: (uci) => this.applyMove({ from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] }, 'engine'),
      onEnd: () => { this.updateButtons(); this.show(); },
    });
    this.notationChosen = false; // the notation language follows the page's until the reader picks one
    if ([...this.el.lang.options].some((o) => o.value === currentLang())) this.el.lang.value = currentLang();
    this.wire();
    this.ready = features().then((f) => this.applyFeatures(f));
    onLangChange(() => this.languageChanged());
  }

  // The page's language changed: the words this board wrote are written again.
  languageChanged() {
    if (!this.notationChosen && this.el.lang.value !== currentLang() && [...this.el.lang.options].some((o) => o.value === currentLang())) {
      this.el.lang.value = currentLang();
      this.applyStyle();
      // The engine's lines are written in the notation: search again to write them in the new one.
      if (this.analysing && this.features.lang && !this.section.hidden && !this.game.active) this.startAnalysis();
    }
    this.board.render();
    this.line.render();
    this.applyNotes();
    if (!this.section.hidden) this.setEval(this.evalPv, this.fen());
  }

  wire() {
    const e = this.el;
    e.analyse.addEventListener('click', () => { this.analysing = true; this.startAnalysis(); });
    e.stop.addEventListener('click', () => this.stopAnalysis());
    e.lang.addEventListener('change', () => { this.notationChosen = true; });
    for (const s of [e.engine1, e.engine2, e.movetime, e.multiPv, e.lang, e.notation]) {
      s.addEventListener('change', () => {
        $('engine-panel-2').hidden = !e.engine2.value;
        if (!e.engine2.value) this.runs[1].clear();
        this.applyStyle();
        if (this.analysing) this.startAnalysis();
      });
    }
    e.back.addEventListener('click', () => this.goTo(0));
    e.first.addEventListener('click', () => this.goTo(0));
    e.prev.addEventListener('click', () => this.goTo(this.line.cursor - 1));
    e.next.addEventListener('click', () => this.goTo(this.line.cursor + 1));
    e.last.addEventListener('click', () => this.goTo(this.line.plies.length));
    e.flip.addEventListener('click', () => { this.board.flip(); this.orientEvalBar(); });
    // ←/→/Home/End browse the moves wherever the focus is, but in another card or a field.
    document.addEventListener('keydown', (ev) => {
      if (this.section.hidden || this.game.active || ev.defaultPrevented || ev.altKey || ev.ctrlKey || ev.metaKey) return;
      const t = ev.target instanceof Element ? ev.target : null;
      const elsewhere = t && t !== document.body && !this.section.contains(t);
      if (elsewhere || (t && t.closest('.sq, select, input, textarea'))) return;
      const to = { ArrowLeft: this.line.cursor - 1, ArrowRight: this.line.cursor + 1, Home: 0, End: this.line.plies.length }[ev.key];
      if (to !== undefined) { ev.preventDefault(); this.goTo(to); }
    });
    e.hint.addEventListener('click', () => this.askHint(false));
    e.threat.addEventListener('click', () => this.askHint(true));
    e.playStart.addEventListener('click', () => this.startGame('play'));
    e.playWatch.addEventListener('click', () => this.startGame('watch'));
    e.playStop.addEventListener('click', () => { this.game.stop(); this.el.playStatus.textContent = t('play.stopped'); this.updateButtons(); this.show(); });
  }

  async applyFeatures(f) {
    this.features = f;
    const e = this.el;
    e.langRow.hidden = !f.lang;
    e.coach.hidden = !f.hint;
    e.play.hidden = !f.play;
    this.applyNotes();
    if (!this.notationChosen && [...e.lang.options].some((o) => o.value === currentLang())) e.lang.value = currentLang();
    this.applyStyle();
    if (f.engines) {
      const r = await getJson('/api/v1/engines');
      const list = r.ok && Array.isArray(r.body.engines) ? r.body.engines : [];
      if (list.length) {
        e.engine1.textContent = '';
        for (const en of list) {
          const label = en.id && en.id !== en.name ? `${en.name} (${en.id})` : en.name;
          const o1 = new Option(label, en.name, false, !!en.default);
          e.engine1.append(o1);
          e.engine2.append(new Option(label, en.name));
        }
        e.engineRow.hidden = false;
      }
    }
  }

  // What this server lacks, said above the board.
  applyNotes() {
    const f = this.features, e = this.el;
    const notes = [];
    if (!f.stream) notes.push(t('ab.noStream'));
    if (!f.grade) notes.push(t('ab.noGrade'));
    e.note.textContent = notes.join(' ');
    e.note.hidden = !notes.length;
  }

  // Opens the board on a confirmed position; starts analysing it at once.
  // `scan`: {scanId, scanBoard} of the library board the position came from, or null.
  async load(fen, { orientation = 'white', scan = null } = {}) {
    await this.ready;
    clearError(this.el.error);
    let chess;
    try { chess = new Chess(fen); } catch (err) {
      this.section.hidden = false;
      showError(this.el.error, t('ab.cannotPlay', { reason: err.message.replace(/^Invalid FEN: /, '') }), 'illegal-position');
      this.stopAnalysis();
      return false;
    }
    this.game.stop();
    this.el.playStatus.textContent = '';
    this.el.grade.hidden = true;
    this.section.hidden = false;
    this.line.reset(chess.fen());
    this.scan = scan;
    this.board.setOrientation(orientation);
    this.orientEvalBar();
    this.analysing = true;
    this.show();
    return true;
  }

  fen() { return this.line.fen(); }

  // What a shared link holds of this board: the start position, the moves played
  // from it (UCI), the ply shown, the orientation, and the library board it came from.
  shareState() {
    return {
      fen: this.line.startFen,
      moves: this.line.plies.map((p) => p.uci),
      ply: this.line.cursor,
      flip: this.board.orientation === 'black',
      scan: this.scan ? this.scan.scanId : null,
      board: this.scan ? this.scan.scanBoard : null,
    };
  }

  // Plays moves given in UCI from the start position (a shared line) and shows ply
  // `ply` (default: the last); stops at the first move that is not legal there.
  // Returns how many moves were played.
  playShared(uciMoves, ply) {
    let fen = this.line.startFen;
    this.line.go(0);
    let played = 0;
    for (const uci of uciMoves) {
      const chess = new Chess(fen);
      let mv;
      try { mv = chess.move({ from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] }); } catch (_) { mv = null; }
      if (!mv) break;
      this.line.push(plyEntry(mv, fen, chess.fen(), 'user'));
      fen = chess.fen();
      played++;
    }
    this.line.go(ply == null ? played : Math.max(0, Math.min(played, ply)));
    this.show();
    return played;
  }

  // The move list writes moves as the engine lines do.
  applyStyle() {
    const o = this.opts();
    this.line.setStyle(o.lang || 'en', o.notation || 'san');
  }

  // White's part of the bar grows from White's side of the board.
  orientEvalBar() { this.el.evalBar.toggleAttribute('data-flipped', this.board.orientation === 'black'); }

  opts() {
    const o = {};
    if (this.features.engineField && this.el.engine1.value && !this.el.engineRow.hidden) o.engine = this.el.engine1.value;
    if (this.features.lang) { o.lang = this.el.lang.value; o.notation = this.el.notation.value; }
    return o;
  }

  // Draws the position at the cursor and everything that depends on it.
  show() {
    const fen = this.fen();
    const chess = new Chess(fen);
    const last = this.line.last();
    this.board.setPosition(fen, { lastMove: last && { from: last.from, to: last.to }, check: checkSquare(chess) });
    const turn = chess.turn();
    const key = positionKey(fen);
    const reached = [this.line.startFen, ...this.line.plies.slice(0, this.line.cursor).map((p) => p.fenAfter)];
    const over = gameOverText(chess, reached.filter((f) => positionKey(f) === key).length);
    const canMove = !over && (this.game.active ? this.game.isUsersTurn(turn) : true);
    this.board.setMovable(canMove ? chess.moves({ verbose: true }) : []);
    this.el.fen.textContent = fen;
    this.section.dataset.fen = fen;
    this.section.dataset.ply = String(this.line.cursor);
    if (this.onShow) this.onShow();
    this.hintMarks = null;
    this.board.setMarks([]);
    this.el.hintText.textContent = '';
    this.best = [null, null];
    this.drawArrows();
    this.updateButtons();
    if (this.game.active) {
      this.game.positionChanged(fen, turn, over);
    } else if (this.analysing) {
      this.startAnalysis();
    } else {
      // Lines of this position stay, greyed; another position's go.
      for (const r of this.runs) if (r.fen === fen) r.lines.classList.add('stale'); else r.clear();
      this.setEval(null, fen);
    }
  }

  goTo(ply) {
    if (ply < 0 || ply > this.line.plies.length || ply === this.line.cursor) return;
    this.line.go(ply);
    this.show();
  }

  startAnalysis() {
    if (this.section.hidden || this.game.active) return;
    const fen = this.fen();
    // "Until stopped" needs the stream; a server without one gets the longest fixed time.
    const infinite = this.el.movetime.value === 'infinite' && this.features.stream;
    const base = {
      movetimeMs: Number(this.el.movetime.value) || 5000,
      infinite,
      multiPv: Number(this.el.multiPv.value) || 3,
      stream: this.features.stream,
      ...this.opts(),
    };
    this.setEval(null, fen);
    const name = (select) => select.selectedOptions[0]?.textContent || select.value;
    if (!this.el.engineRow.hidden) {
      this.runs[0].panel.querySelector('.engine-name').textContent = name(this.el.engine1);
      this.runs[1].panel.querySelector('.engine-name').textContent = name(this.el.engine2);
    }
    // The first engine's analysis of the scanned position itself is kept in the library.
    const keep = this.scan && this.line.cursor === 0 ? this.scan : {};
    this.runs[0].start(fen, { ...base, ...keep });
    if (this.el.engine2.value && !this.el.engineRow.hidden) this.runs[1].start(fen, { ...base, engine: this.el.engine2.value });
    this.updateButtons();
  }

  stopAnalysis() {
    this.analysing = false;
    for (const r of this.runs) r.stop();
    this.updateButtons();
  }

  engineUpdate(k, a, fen) {
    if (fen !== this.fen()) return;
    const pv = Array.isArray(a.pvs) ? a.pvs[0] : null;
    const uci = (a.bestMove && a.bestMove.uci) || (pv && String(pv.moves || '').split(' ')[0]) || '';
    this.best[k] = uci.length >= 4 ? { from: uci.slice(0, 2), to: uci.slice(2, 4), kind: k === 0 ? 'best' : 'second' } : null;
    this.drawArrows();
    if (k === 0) this.setEval(pv, fen);
  }

  setEval(pv, fen) {
    const e = this.el;
    this.evalPv = pv;
    // No line: full for the winner when the side to move is mated, else even.
    if (!pv && new Chess(fen).isCheckmate()) pv = { mate: 0 };
    const share = pv ? whiteShare(pv, fen.split(' ')[1]) : 50;
    e.evalWhite.style.height = `${share}%`;
    // The bar is narrow: one decimal, or the mate count.
    e.evalLabel.textContent = !pv ? '' : typeof pv.cp === 'number' ? (Math.abs(pv.cp) / 100).toFixed(1) : formatScore(pv);
    e.evalBar.classList.toggle('white-better', share >= 50);
    e.evalBar.classList.toggle('black-better', share < 50);
    e.evalBar.setAttribute('aria-valuenow', String(Math.round(share)));
    e.evalBar.setAttribute('aria-valuetext', pv ? t('ab.evaluation', { score: formatScore(pv) }) : t('ab.noEval'));
  }

  drawArrows() {
    const list = [];
    if (!this.game.active) list.push(this.best[1], this.best[0]);
    if (this.hintMarks) list.push(...this.hintMarks.arrows);
    this.board.setArrows(list.filter(Boolean));
  }

  updateButtons() {
    const e = this.el;
    const running = this.runs.some((r) => r.running);
    e.analyse.hidden = running;
    e.stop.hidden = !running;
    e.analyse.disabled = this.game.active;
    const inGame = this.game.active;
    const c = this.line.cursor, n = this.line.plies.length;
    e.back.disabled = inGame || c === 0;
    e.first.disabled = inGame || c === 0;
    e.prev.disabled = inGame || c === 0;
    e.next.disabled = inGame || c === n;
    e.last.disabled = inGame || c === n;
    e.hint.disabled = inGame;
    e.threat.disabled = inGame;
    e.playStart.hidden = inGame;
    e.playWatch.hidden = inGame;
    e.playStop.hidden = !inGame;
  }

  // A move the user made on the board.
  userMove(m) {
    this.applyMove(m, 'user');
  }

  applyMove(m, by) {
    const before = this.fen();
    const chess = new Chess(before);
    let mv;
    try { mv = chess.move({ from: m.from, to: m.to, promotion: m.promotion }); } catch (_) { mv = null; }
    if (!mv) { this.show(); return; }
    const entry = plyEntry(mv, before, chess.fen(), by);
    const ply = this.line.push(entry);
    this.show();
    if (by === 'user' && !this.game.active) this.gradeMove(ply, entry);
  }

  // Plays the first moves of an engine line (UCI) from the current position.
  playLine(uciMoves) {
    if (this.game.active) return;
    let fen = this.fen();
    for (const uci of uciMoves) {
      const chess = new Chess(fen);
      let mv;
      try { mv = chess.move({ from: uci.slice(0, 2), to: uci.slice(2, 4), promotion: uci[4] }); } catch (_) { break; }
      this.line.push(plyEntry(mv, fen, chess.fen(), 'engine'));
      fen = chess.fen();
    }
    this.show();
  }

  async gradeMove(ply, entry) {
    if (!this.features.grade) return;
    const box = this.el.grade;
    box.hidden = false;
    box.classList.add('pending');
    box.textContent = t('grade.grading', { move: this.line.written(entry) });
    box.dataset.grading = String(ply);
    const r = await grade(entry.fenBefore, entry.uci, this.opts());
    box.classList.remove('pending');
    if (this.line.plies[ply - 1] !== entry) { if (box.dataset.grading === String(ply)) { box.hidden = true; delete box.dataset.grading; } return; }
    delete box.dataset.grading;
    if (!r.ok) { showError(box, t('grade.failed', { move: this.line.written(entry), message: r.message }), r.code); return; }
    this.line.setGrade(ply, entry, r.body);
    showGrade(box, r.body);
  }

  async askHint(threat) {
    const fen = this.fen();
    const level = Number(this.el.hintLevel.value) || 1;
    const out = this.el.hintText;
    out.classList.remove('error');
    out.textContent = t(threat ? 'hint.lookingThreat' : 'hint.thinking');
    // The hint's sentence is worded in the page's language (its move in that language's letters).
    const opts = this.opts();
    if (this.features.lang) opts.lang = currentLang();
    const r = await hint(fen, level, threat, opts);
    if (fen !== this.fen()) return;
    if (!r.ok) { out.classList.add('error'); out.textContent = `${r.message}${r.code ? ` (${r.code})` : ''}`; return; }
    const h = r.body;
    out.textContent = h.text || '';
    const marks = [];
    const arrows = [];
    if (/^[a-h][1-8]$/.test(h.from || '')) marks.push({ square: h.from, kind: threat ? 'threat' : 'hint', label: t(threat ? 'hint.threatPiece' : 'hint.hintPiece') });
    if (h.move && h.move.uci) arrows.push({ from: h.move.uci.slice(0, 2), to: h.move.uci.slice(2, 4), kind: threat ? 'threat' : 'hint' });
    this.hintMarks = { marks, arrows };
    this.board.setMarks(marks);
    this.drawArrows();
  }

  startGame(mode) {
    if (!this.features.play) return;
    this.stopAnalysis();
    const userColor = document.querySelector('input[name="play-colour"]:checked')?.value === 'b' ? 'b' : 'w';
    const clock = this.el.playClock.checked
      ? { minutes: Math.max(0.25, Number(this.el.playMinutes.value) || 5), increment: Math.max(0, Number(this.el.playIncrement.value) || 0) }
      : null;
    const opts = {};
    if (this.features.engineField && !this.el.engineRow.hidden && this.el.engine1.value) opts.engine = this.el.engine1.value;
    this.el.grade.hidden = true;
    this.game.start({ mode, userColor, level: Number(this.el.playLevel.value) || 4, clock, opts });
    if (mode === 'play') { this.board.setOrientation(userColor === 'b' ? 'black' : 'white'); this.orientEvalBar(); }
    this.show();
  }
}
