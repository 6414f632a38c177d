// The coach: hints (POST /api/v1/hint), grades of the user's moves
// (POST /api/v1/grade), and playing out a position against the engine at a chosen
// strength, or watching it play both sides (POST /api/v1/play in a loop), with an
// optional clock.

import { postJson } from './api.js?v={{asset-version}}';
import { t } from './i18n.js?v={{asset-version}}';

// A grade's name in the page's language ("Blunder"), or the grade itself.
export const gradeName = (g) => (['best', 'good', 'inaccuracy', 'mistake', 'blunder'].includes(g) ? t(`grade.${g}`) : g);

export function hint(fen, level, threat, opts) {
  const body = { fen, level, ...opts };
  if (threat) body.threat = true;
  return postJson('/api/v1/hint', body);
}

export function grade(fen, uci, opts) {
  return postJson('/api/v1/grade', { fen, move: uci, ...opts });
}

// Fills `box` with a grade answer: a badge, the move, and the better move when there was one.
export function showGrade(box, g) {
  box.textContent = '';
  const badge = document.createElement('span');
  badge.className = `badge grade-${g.grade}`;
  badge.dataset.grade = g.grade;
  badge.textContent = gradeName(g.grade);
  const text = document.createElement('span');
  const san = g.move && (g.move.san || g.move.uci);
  let sentence = ` ${san}`;
  if (g.grade !== 'best' && g.best && g.best.uci !== (g.move && g.move.uci)) {
    sentence += `; ${t('grade.betterWas', { move: g.best.san || g.best.uci })}`;
    if (Array.isArray(g.bestLine) && g.bestLine.length > 1) sentence += ` (${g.bestLine.slice(0, 5).join(' ')})`;
  }
  if (typeof g.winChanceLoss === 'number' && g.winChanceLoss > 0.005) sentence += `, ${t('grade.losing', { p: Math.round(g.winChanceLoss * 100) })}`;
  text.textContent = `${sentence}.`;
  box.append(badge, text);
  box.hidden = false;
}

const clockText = (ms) => {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
};

// One game from a position: the user against the engine, or the engine against itself.
// The owner tells it about every position (`positionChanged`) and plays the engine's
// moves it asks for (`onEngineMove(uci)`).
export class Game {
  constructor({ clocks, status, onEngineMove, onEnd }) {
    this.clocks = clocks; // {w, b} elements
    this.statusEl = status;
    this.onEngineMove = onEngineMove;
    this.onEnd = onEnd;
    this.active = false;
    this.seq = 0;
    this.timer = null;
    this.abort = null;
  }

  // `o`: {mode: 'play'|'watch', userColor: 'w'|'b', level, clock: {minutes, increment}|null, opts}.
  start(o) {
    this.stop();
    this.o = o;
    this.active = true;
    this.seq++;
    this.moves = 0;
    this.time = o.clock ? { w: o.clock.minutes * 60000, b: o.clock.minutes * 60000 } : null;
    this.turn = null;
    this.clocks.w.closest('.clocks').hidden = !o.clock;
    this.drawClocks();
  }

  isUsersTurn(turn) { return this.active && this.o.mode === 'play' && turn === this.o.userColor; }

  // Called for each position of the game; `over` is the game-over text, if any.
  positionChanged(fen, turn, over) {
    if (!this.active) return;
    this.tick();
    if (this.turn && this.turn !== turn) {
      this.moves++;
      if (this.time) this.time[this.turn] += this.o.clock.increment * 1000;
    }
    this.turn = turn;
    this.since = performance.now();
    this.drawClocks();
    if (over) { this.end(over); return; }
    if (this.time && !this.timer) this.timer = setInterval(() => this.tick(), 200);
    if (this.o.mode === 'watch' || turn !== this.o.userColor) this.think(fen, turn);
    else this.status(t(turn === 'w' ? 'play.yourMoveW' : 'play.yourMoveB'));
  }

  async think(fen, turn) {
    const seq = this.seq;
    this.status(t(turn === 'w' ? 'play.thinkingW' : 'play.thinkingB', { level: this.o.level }));
    if (this.o.mode === 'watch' && this.moves > 0) await new Promise((r) => setTimeout(r, 400));
    if (seq !== this.seq) return;
    const body = { fen, level: this.o.level, ...this.o.opts };
    // With a clock, the engine spends about a thirtieth of what it has left.
    if (this.time) body.movetimeMs = Math.max(50, Math.min(5000, Math.round(this.time[turn] / 30)));
    this.abort = new AbortController();
    const r = await postJson('/api/v1/play', body, this.abort.signal);
    if (seq !== this.seq || !this.active) return;
    this.abort = null;
    if (!r.ok) { this.end(t('play.cannotMove', { message: `${r.message}${r.code ? ` (${r.code})` : ''}` })); return; }
    this.onEngineMove(r.body.move.uci);
  }

  tick() {
    if (!this.active || !this.time || !this.turn) return;
    const now = performance.now();
    this.time[this.turn] -= now - this.since;
    this.since = now;
    this.drawClocks();
    if (this.time[this.turn] <= 0) {
      this.time[this.turn] = 0;
      this.drawClocks();
      this.end(t(this.turn === 'w' ? 'play.timeW' : 'play.timeB'));
    }
  }

  drawClocks() {
    for (const side of ['w', 'b']) {
      const c = this.clocks[side];
      c.textContent = this.time ? clockText(this.time[side]) : '';
      c.classList.toggle('running', this.active && this.turn === side);
      c.classList.toggle('low', !!this.time && this.time[side] < 10000);
    }
  }

  status(text) { this.statusEl.textContent = text; }

  end(text) {
    this.stop();
    this.status(t('play.over', { text }));
    this.onEnd(text);
  }

  // Ends the game without a result (the user stopped it).
  stop() {
    this.seq++;
    this.active = false;
    if (this.timer) { clearInterval(this.timer); this.timer = null; }
    if (this.abort) { this.abort.abort(); this.abort = null; }
    this.drawClocks();
  }
}
