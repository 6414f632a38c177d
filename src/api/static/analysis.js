// Live analysis of one position by one engine, drawn into an engine panel: the
// lines and their scores, updated each time the search completes a depth
// (Server-Sent Events from GET /api/v1/analyze/stream), until it finishes or the
// user stops it. Where the server has no stream, one POST /api/v1/analyze instead.

import { clearError, postJson, readResponse, showError } from './api.js?v={{asset-version}}';
import { t } from './i18n.js?v={{asset-version}}';

export function formatScore(pv) {
  if (typeof pv.mate === 'number') return `#${pv.mate}`;
  if (typeof pv.cp === 'number') {
    const v = pv.cp / 100;
    return (v > 0 ? '+' : v < 0 ? '\u2212' : '') + Math.abs(v).toFixed(2);
  }
  return '?';
}

// White's share of the evaluation bar, 0..100, as lichess draws it.
export function whiteShare(pv, stm) {
  if (!pv) return 50;
  if (typeof pv.mate === 'number') {
    if (pv.mate > 0) return 100;
    if (pv.mate < 0) return 0;
    return stm === 'w' ? 0 : 100; // mate 0: the side to move is mated
  }
  if (typeof pv.cp === 'number') return 50 + 50 * (2 / (1 + Math.exp(-0.00368208 * pv.cp)) - 1);
  return 50;
}

function compact(n) {
  if (typeof n !== 'number') return '?';
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  return String(n);
}

// The request's optional fields, left out at their defaults so that a server
// without them still answers.
function options(o) {
  const out = {};
  if (o.engine) out.engine = o.engine;
  if (o.lang && o.lang !== 'en') out.lang = o.lang;
  if (o.notation && o.notation !== 'san') out.notation = o.notation;
  if (o.scanId != null) { out.scanId = o.scanId; out.scanBoard = o.scanBoard ?? 0; }
  return out;
}

export class EngineRun {
  // `panel` holds `.engine-status`, `.engine-error` and `ol.lines`.
  // `onUpdate(analysis, fen, final)` after each depth; `onState(running)`;
  // `onPlayLine(uciMoves)` when a move in a line is clicked.
  constructor(panel, { onUpdate, onState, onPlayLine }) {
    this.panel = panel;
    this.status = panel.querySelector('.engine-status');
    this.errorBox = panel.querySelector('.engine-error');
    this.lines = panel.querySelector('.lines');
    this.onUpdate = onUpdate;
    this.onState = onState;
    this.onPlayLine = onPlayLine;
    this.source = null;
    this.abort = null;
    this.seq = 0;
    this.running = false;
    this.fen = null;
    this.updates = 0;
    this.lastInfo = '';
    this.lines.addEventListener('click', (e) => {
      const mv = e.target.closest('.move[data-index]');
      if (!mv) return;
      const li = mv.closest('li');
      const uci = (li.dataset.moves || '').split(' ').filter(Boolean);
      this.onPlayLine(uci.slice(0, Number(mv.dataset.index) + 1));
    });
  }

  // Starts analysing `fen`; stops whatever ran before. `o`: {engine, movetimeMs, infinite, multiPv, lang, notation, stream}.
  start(fen, o) {
    this.stop(false);
    const seq = ++this.seq;
    this.fen = fen;
    this.updates = 0;
    this.lastInfo = '';
    this.panel.dataset.updates = '0';
    delete this.panel.dataset.depth;
    clearError(this.errorBox);
    this.lines.classList.add('stale');
    this.setRunning(true, o.stream ? t(o.infinite ? 'an.searchingInfinite' : 'an.searching') : t('an.thinking', { s: o.movetimeMs / 1000 }));
    if (o.stream) this.startStream(seq, fen, o); else this.startOnce(seq, fen, o);
  }

  startStream(seq, fen, o) {
    const budget = o.infinite ? { infinite: 'true' } : { movetimeMs: String(o.movetimeMs) };
    const params = new URLSearchParams({ fen, multiPv: String(o.multiPv), ...budget, ...options(o) });
    const url = `/api/v1/analyze/stream?${params}`;
    const source = new EventSource(url);
    this.source = source;
    const take = (e, final) => {
      if (seq !== this.seq) return;
      let a;
      try { a = JSON.parse(e.data); } catch (_) { this.fail(seq, t('an.notJson')); return; }
      this.render(a, fen, final);
      if (final) this.finish(seq, 'done');
    };
    source.addEventListener('depth', (e) => take(e, false));
    source.addEventListener('done', (e) => take(e, true));
    source.addEventListener('error', (e) => {
      if (seq !== this.seq) return;
      source.close();
      if (typeof e.data === 'string') { // the server's own `event: error`
        let body = null;
        try { body = JSON.parse(e.data); } catch (_) { body = null; }
        this.fail(seq, (body && body.error) || e.data, body && body.code);
        return;
      }
      if (this.updates > 0) { this.fail(seq, t('an.lost')); return; }
      // Refused before any depth: ask again to read the server's answer.
      const ctl = new AbortController();
      this.abort = ctl;
      fetch(url, { signal: ctl.signal }).then(async (res) => {
        if (res.ok) { ctl.abort(); this.fail(seq, t('an.noStream')); return; }
        const r = await readResponse(res);
        this.fail(seq, r.message, r.code);
      }, (err) => { if (err.name !== 'AbortError') this.fail(seq, t('err.unreachable', { message: err.message })); });
    });
  }

  async startOnce(seq, fen, o) {
    const ctl = new AbortController();
    this.abort = ctl;
    const r = await postJson('/api/v1/analyze', { fen, movetimeMs: o.movetimeMs, multiPv: o.multiPv, ...options(o) }, ctl.signal);
    if (seq !== this.seq) return;
    if (!r.ok) { if (!r.aborted) this.fail(seq, r.message, r.code); return; }
    this.render(r.body, fen, true);
    this.finish(seq, 'done');
  }

  // Stops the search (closing the stream stops it on the server). `show`: say so in the panel.
  stop(show = true) {
    const wasRunning = this.running;
    this.seq++;
    if (this.source) { this.source.close(); this.source = null; }
    if (this.abort) { this.abort.abort(); this.abort = null; }
    const stopped = this.panel.dataset.depth ? t('an.stoppedAt', { depth: this.panel.dataset.depth }) : t('an.stopped');
    if (wasRunning) this.setRunning(false, show ? `${stopped} ${this.lastInfo}` : this.status.textContent);
  }

  finish(seq, how) {
    if (seq !== this.seq) return;
    if (this.source) { this.source.close(); this.source = null; }
    this.abort = null;
    this.setRunning(false, `${this.lastInfo} (${t(how === 'done' ? 'an.finished' : 'an.stoppedShort')})`);
  }

  fail(seq, message, code) {
    if (seq !== this.seq) return;
    if (this.source) { this.source.close(); this.source = null; }
    this.abort = null;
    showError(this.errorBox, message, code);
    this.setRunning(false, '');
  }

  setRunning(on, text) {
    this.running = on;
    this.panel.classList.toggle('running', on);
    this.status.textContent = text;
    this.onState(on);
  }

  clear() {
    this.stop(false);
    this.lines.textContent = '';
    this.status.textContent = '';
    clearError(this.errorBox);
    delete this.panel.dataset.depth;
  }

  render(a, fen, final) {
    this.updates++;
    this.panel.dataset.updates = String(this.updates);
    if (a.depth != null) this.panel.dataset.depth = String(a.depth);
    this.panel.dataset.fen = fen;
    const pvs = Array.isArray(a.pvs) ? a.pvs : [];
    const stm = fen.split(' ')[1];
    this.lines.textContent = '';
    this.lines.classList.remove('stale');
    for (const pv of pvs) {
      const li = document.createElement('li');
      li.dataset.moves = String(pv.moves || '');
      const score = document.createElement('span');
      score.className = 'score';
      score.textContent = formatScore(pv);
      if (whiteShare(pv, stm) < 50) score.classList.add('black-better');
      if (Array.isArray(pv.wdl) && pv.wdl.length === 3) {
        const [w, d, l] = pv.wdl.map((x) => (x / 10).toFixed(1));
        score.title = t('an.wdl', { w, d, l });
      }
      const line = document.createElement('span');
      line.className = 'san';
      const sans = Array.isArray(pv.san) && pv.san.length ? pv.san : String(pv.moves || '').split(' ').filter(Boolean);
      line.append(sanLine(sans, fen));
      li.append(score, ' ', line);
      this.lines.append(li);
    }
    if (!pvs.length) {
      const li = document.createElement('li');
      li.textContent = t('an.noMoves');
      this.lines.append(li);
    }
    const info = [];
    if (a.depth != null) info.push(t('an.depth', { depth: `${a.depth}${a.seldepth ? '/' + a.seldepth : ''}` }));
    if (a.nodes != null) info.push(t('an.nodes', { n: compact(a.nodes) }));
    if (a.nps != null) info.push(t('an.nps', { n: compact(a.nps) }));
    if (a.timeMs != null) info.push(t('an.seconds', { s: (a.timeMs / 1000).toFixed(1) }));
    if (a.bestMove) info.unshift(t('an.best', { move: a.bestMove.san || a.bestMove.uci }));
    this.lastInfo = info.join(' · ');
    this.status.textContent = `${final ? '' : `${t('an.searching')} `}${this.lastInfo}`;
    this.onUpdate(a, fen, final);
  }
}

// A line of moves, numbered from the position's move number; each move clickable.
function sanLine(sans, fen) {
  const f = fen.split(' ');
  let white = f[1] !== 'b';
  let n = Number(f[5]) || 1;
  const frag = document.createDocumentFragment();
  sans.forEach((m, k) => {
    if (white || k === 0) {
      const num = document.createElement('span');
      num.className = 'num';
      num.textContent = white ? `${n}.` : `${n}\u2026`;
      frag.append(num, '\u00A0');
    }
    const mv = document.createElement('span');
    mv.className = k === 0 ? 'move first' : 'move';
    mv.dataset.index = String(k);
    mv.textContent = m;
    frag.append(mv, ' ');
    if (!white) n++;
    white = !white;
  });
  return frag;
}
