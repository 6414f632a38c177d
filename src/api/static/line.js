// The moves played on the analysis board from the scanned position: a single line
// with a cursor (the position shown). Playing a move when the cursor is not at the
// end replaces the rest of the line, as on a paper score sheet.

const GRADE_MARK = { best: '!', good: '', inaccuracy: '?!', mistake: '?', blunder: '??' };

export class MoveLine {
  // `onSelect(ply)` is called when the user clicks a move (ply 0 is the start).
  constructor(listEl, { onSelect }) {
    this.el = listEl;
    this.onSelect = onSelect;
    this.el.addEventListener('click', (e) => {
      const b = e.target.closest('.mv');
      if (b) this.onSelect(Number(b.dataset.ply));
    });
    this.reset('8/8/8/8/8/8/8/8 w - - 0 1');
  }

  reset(startFen) {
    this.startFen = startFen;
    this.plies = []; // {san, uci, from, to, fenBefore, fenAfter, by, grade?}
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
    start.textContent = 'Start';
    start.setAttribute('aria-label', 'The scanned position');
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
      b.textContent = p.san;
      if (p.grade) {
        b.classList.add(`grade-${p.grade.grade}`);
        const mark = GRADE_MARK[p.grade.grade];
        if (mark) {
          const m = document.createElement('span');
          m.className = 'mark';
          m.textContent = mark;
          b.append(m);
        }
        b.title = p.grade.grade;
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
