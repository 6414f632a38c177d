// The moves played on the analysis board from the scanned position: a single line
// with a cursor (the position shown). Playing a move when the cursor is not at the
// end replaces the rest of the line, as on a paper score sheet.

import { t } from './i18n.js?v={{asset-version}}';

// As lichess marks them: only the moves that lose something get a sign.
const GRADE_MARK = { best: '', good: '', inaccuracy: '?!', mistake: '?', blunder: '??' };

const LETTERS = {
  en: { k: 'K', q: 'Q', r: 'R', b: 'B', n: 'N' },
  ru: { k: 'Кр', q: 'Ф', r: 'Л', b: 'С', n: 'К' },
  ro: { k: 'R', q: 'D', r: 'T', b: 'N', n: 'C' },
  de: { k: 'K', q: 'D', r: 'T', b: 'L', n: 'S' },
  fr: { k: 'R', q: 'D', r: 'T', b: 'F', n: 'C' },
};
const FIGURINES = { w: { k: '♔', q: '♕', r: '♖', b: '♗', n: '♘' }, b: { k: '♚', q: '♛', r: '♜', b: '♝', n: '♞' } };
const ICCF_PROMOTION = { q: 1, r: 2, b: 3, n: 4 };

// A move as docs/notation.md writes it (the server's `lang` and `notation`):
// `m` has chess.js's verbose fields {color, piece, from, to, san, captured, promotion}.
export function writeMove(m, lang = 'en', notation = 'san') {
  const digits = (sq) => `${sq.charCodeAt(0) - 96}${sq[1]}`;
  if (notation === 'iccf') return digits(m.from) + digits(m.to) + (m.promotion ? ICCF_PROMOTION[m.promotion] : '');
  const letter = (p) => (lang === 'figurine' ? FIGURINES[m.color][p] : (LETTERS[lang] || LETTERS.en)[p]);
  const check = (m.san.match(/[+#]$/) || [''])[0];
  const san = m.san.replace(/[+#]$/, '');
  if (san.startsWith('O-O')) return (lang === 'en' || lang === 'figurine' ? san : san.replace(/O/g, '0')) + check;
  const capture = lang === 'ru' ? ':' : 'x';
  if (notation === 'long') {
    const piece = m.piece === 'p' ? '' : letter(m.piece);
    return `${piece}${m.from}${m.captured ? capture : '-'}${m.to}${m.promotion ? letter(m.promotion) : ''}${check}`;
  }
  return san
    .replace(/^[KQRBN]/, (p) => letter(p.toLowerCase()))
    .replace(/=([QRBN])$/, (_, p) => `=${letter(p.toLowerCase())}`)
    .replace('x', capture) + check;
}

export class MoveLine {
  // `onSelect(ply)` is called when the user clicks a move (ply 0 is the start).
  constructor(listEl, { onSelect }) {
    this.el = listEl;
    this.onSelect = onSelect;
    this.el.addEventListener('click', (e) => {
      const b = e.target.closest('.mv');
      if (b) this.onSelect(Number(b.dataset.ply));
    });
    this.style = { lang: 'en', notation: 'san' };
    this.reset('8/8/8/8/8/8/8/8 w - - 0 1');
  }

  // How moves are written (the analysis card's language and notation).
  setStyle(lang, notation) {
    this.style = { lang, notation };
    this.render();
  }

  // A ply's move as the list writes it.
  written(p) { return writeMove(p, this.style.lang, this.style.notation); }

  reset(startFen) {
    this.startFen = startFen;
    this.plies = []; // chess.js's verbose move fields and {uci, fenBefore, fenAfter, by, grade?}
    this.cursor = 0;
    this.render();
  }

  fen() { return this.cursor === 0 ? this.startFen : this.plies[this.cursor - 1].fenAfter; }
  last() { return this.cursor === 0 ? null : this.plies[this.cursor - 1]; }
  atEnd() { return this.cursor === this.plies.length; }

  // Adds a move after the cursor; returns its ply number (1-based).
  push(move) {
    this.plies.length = this.cursor;
    this.plies.push(move);
    this.cursor = this.plies.length;
    this.render();
    return this.cursor;
  }

  go(ply) {
    this.cursor = Math.max(0, Math.min(this.plies.length, ply));
    this.render();
  }

  // A grade answer for one ply (see POST /api/v1/grade); ignored if that ply was replaced.
  setGrade(ply, move, grade) {
    const p = this.plies[ply - 1];
    if (p !== move) return;
    p.grade = grade;
    this.render();
  }

  render() {
    this.el.textContent = '';
    const f = this.startFen.split(' ');
    let white = f[1] !== 'b';
    let n = Number(f[5]) || 1;
    const start = document.createElement('button');
    start.type = 'button';
    start.className = 'mv start' + (this.cursor === 0 ? ' current' : '');
    start.dataset.ply = '0';
    start.textContent = t('line.start');
    start.setAttribute('aria-label', t('line.startLabel'));
    this.el.append(start);
    this.plies.forEach((p, k) => {
      if (white || k === 0) {
        const num = document.createElement('span');
        num.className = 'num';
        num.textContent = white ? `${n}.` : `${n}\u2026`;
        this.el.append(num);
      }
      const b = document.createElement('button');
      b.type = 'button';
      b.className = 'mv' + (this.cursor === k + 1 ? ' current' : '') + (p.by === 'engine' ? ' engine' : '');
      b.dataset.ply = String(k + 1);
      b.textContent = this.written(p);
      if (p.grade) {
        b.classList.add(`grade-${p.grade.grade}`);
        const mark = GRADE_MARK[p.grade.grade];
        if (mark) {
          const m = document.createElement('span');
          m.className = 'mark';
          m.textContent = mark;
          b.append(m);
        }
        b.title = t(`grade.${p.grade.grade}`);
      }
      if (this.cursor === k + 1) b.setAttribute('aria-current', 'true');
      this.el.append(b);
      if (!white) n++;
      white = !white;
    });
    // Keep the current move in view inside the list (not by scrolling the page).
    const cur = this.el.querySelector('.current');
    if (cur && this.el.scrollHeight > this.el.clientHeight) {
      this.el.scrollTop = Math.max(0, cur.offsetTop - this.el.offsetTop - this.el.clientHeight / 2);
    }
  }
}
