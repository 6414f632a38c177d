// boardscan web page: the scan library. Lists kept scans with their
// thumbnails, searches them, opens one in the board editor or the analysis,
// exports them, and saves a person's correction of the board in the editor.
// Talks to app.js only through window.boardscan (fen, board, open).
'use strict';

(() => {
  const PER_PAGE = 12;
  const $ = (id) => document.getElementById(id);
  const make = (tag, props = {}, children = []) => {
    const node = Object.assign(document.createElement(tag), props);
    for (const child of children) node.append(child);
    return node;
  };
  const api = () => window.boardscan;
  // The page's words (i18n.js, a module that runs before this script).
  const i18n = () => window.boardscanI18n;
  const t = (key, params) => (i18n() ? i18n().t(key, params) : key);
  const say = (node, key, params) => { if (i18n()) i18n().say(node, key, params); else node.textContent = key; };
  const plain = (node, text) => { delete node.dataset.i18n; delete node.dataset.i18nParams; node.textContent = text; };
  // An element whose text is a message, kept in the page's language.
  const worded = (tag, key, props = {}) => {
    const node = make(tag, props);
    say(node, key);
    return node;
  };

  // ---------- the Library card ----------

  const status = make('p', { id: 'library-status', className: 'muted small', role: 'status' });
  const fenInput = make('input', { id: 'library-fen', type: 'text', spellcheck: false, placeholder: t('lib.fenPlaceholder'), size: 36 });
  fenInput.dataset.testid = 'library-fen';
  fenInput.dataset.i18nAttr = 'placeholder=lib.fenPlaceholder';
  const mode = make('select', { id: 'library-mode' }, [
    worded('option', 'lib.samePlacement', { value: 'placement' }),
    worded('option', 'lib.exactFen', { value: 'fen' }),
  ]);
  const material = make('input', { id: 'library-material', type: 'text', spellcheck: false, placeholder: t('lib.material'), size: 12 });
  material.dataset.testid = 'library-material';
  material.dataset.i18nAttr = 'placeholder=lib.material';
  const onlyCorrected = make('input', { id: 'library-corrected', type: 'checkbox' });
  const search = worded('button', 'lib.search', { type: 'button', className: 'button' });
  search.dataset.testid = 'library-search';
  const list = make('ol', { id: 'library-list', className: 'library-list' });
  list.dataset.testid = 'library-list';
  const prev = worded('button', 'lib.newer', { type: 'button', className: 'button' });
  const next = worded('button', 'lib.older', { type: 'button', className: 'button' });
  const pageInfo = make('span', { className: 'muted small' });
  const exports = make('p', { className: 'links' });
  const card = make('section', { id: 'library', className: 'card' }, [
    worded('h2', 'lib.title', { id: 'library-title' }),
    worded('p', 'lib.intro', { className: 'muted small' }),
    make('div', { className: 'option-row library-search' }, [
      fenInput, mode, material,
      make('label', {}, [onlyCorrected, ' ', worded('span', 'lib.correctedOnly')]), search,
    ]),
    status, list,
    make('div', { className: 'option-row' }, [prev, pageInfo, next]),
    exports,
  ]);
  card.dataset.testid = 'library';
  card.setAttribute('aria-labelledby', 'library-title');
  card.hidden = true;
  document.querySelector('main').append(card);

  // ---------- the "Save correction" button beside the editor's FEN ----------

  const save = worded('button', 'lib.save', { type: 'button', className: 'button primary', id: 'save-correction' });
  save.dataset.testid = 'save-correction';
  save.dataset.i18nAttr = 'title=lib.saveTitle';
  save.title = t('lib.saveTitle');
  const saveStatus = make('span', { className: 'muted small', role: 'status' });
  saveStatus.dataset.testid = 'save-correction-status';
  const saveRow = make('p', { className: 'save-correction' }, [save, ' ', saveStatus]);
  saveRow.hidden = true;
  const fenRow = document.querySelector('.fen-row');
  if (fenRow) fenRow.after(saveRow);

  const state = { page: 1, total: 0, filters: {}, enabled: false };

  // The body of an answer, or null; a 401 asks for the access token.
  async function json(res) {
    if (res.status === 401 && window.boardscanAccess) {
      window.boardscanAccess.ask(t('lib.tokenNeeded'));
    }
    let body = null;
    try { body = await res.json(); } catch (_) { /* not JSON */ }
    return body;
  }

  function query(extra = {}) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries({ ...state.filters, ...extra })) {
      if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
    }
    return params.toString();
  }

  async function refresh() {
    let res;
    try {
      res = await fetch(`/api/v1/scans?${query({ page: state.page, perPage: PER_PAGE })}`);
    } catch (e) {
      plain(status, t('err.unreachable', { message: e.message }));
      return;
    }
    const body = await json(res);
    if (res.status === 404 && body && body.code === 'library-off') {
      state.enabled = false;
      card.hidden = true;
      saveRow.hidden = true;
      return;
    }
    state.enabled = true;
    card.hidden = false;
    syncSave();
    if (res.status === 401) {
      say(status, 'lib.tokenNeeded');
      return;
    }
    if (!res.ok) {
      if (body && body.error) plain(status, body.error); else say(status, 'lib.answered', { status: res.status });
      return;
    }
    state.total = body.total;
    if (body.total) say(status, 'lib.count', { n: body.total }); else say(status, 'lib.empty');
    render(body.scans);
    const pages = Math.max(1, Math.ceil(body.total / PER_PAGE));
    pageInfo.textContent = ` ${t('lib.page', { page: state.page, pages })} `;
    prev.disabled = state.page <= 1;
    next.disabled = state.page >= pages;
    exports.textContent = `${t('lib.export')} `;
    for (const format of ['pgn', 'epd', 'csv']) {
      const link = make('a', { href: `/api/v1/scans/export?${query({ format })}`, textContent: format.toUpperCase(), download: `boardscan-library.${format}` });
      link.dataset.testid = `library-export-${format}`;
      exports.append(link, ' ');
    }
  }

  function render(scans) {
    list.textContent = '';
    for (const scan of scans) {
      for (const board of scan.boards) {
        const item = make('li', { className: 'library-item' });
        item.dataset.testid = 'library-item';
        item.dataset.scan = String(scan.id);
        item.dataset.board = String(board.index);
        if (board.hasThumbnail) {
          item.append(make('img', {
            src: `/api/v1/scans/${scan.id}/boards/${board.index}/thumbnail.png`,
            alt: t('lib.thumbAlt', { n: board.index + 1, name: scan.sourceName || t('lib.scanN', { id: scan.id }) }),
            width: 96, height: 96, loading: 'lazy', className: 'library-thumb',
          }));
        }
        const source = (scan.sourceName || t('lib.scanN', { id: scan.id }))
          + (scan.page ? `, ${t('lib.pageN', { n: scan.page })}` : '')
          + (scan.boards.length > 1 ? `, ${t('lib.boardN', { n: board.index + 1 })}` : '');
        const fen = make('code', { className: 'library-fen', textContent: board.fen });
        fen.dataset.testid = 'library-item-fen';
        const text = make('div', { className: 'library-text' }, [
          make('div', { textContent: source }),
          fen,
          make('div', { className: 'muted small', textContent: `${board.material} · ${t('lib.read', { date: new Date(scan.scannedAt).toLocaleString(i18n() ? i18n().lang() : undefined) })} · ${t('info.confidence', { p: (board.confidence * 100).toFixed(0) })}` }),
        ]);
        if (board.corrected) {
          const mark = make('span', { className: 'library-corrected', textContent: `✎ ${t('lib.corrected', { n: board.corrections.length })}`, title: t('lib.readAs', { fen: board.readFen }) });
          mark.dataset.testid = 'library-corrected';
          text.firstChild.append(' ', mark);
        }
        const open = make('button', { type: 'button', className: 'button', textContent: t('lib.open') });
        open.dataset.testid = 'library-open';
        open.addEventListener('click', () => openBoard(scan, board, false));
        const analyse = make('button', { type: 'button', className: 'button', textContent: t('ab.analyse') });
        analyse.addEventListener('click', () => openBoard(scan, board, true));
        const remove = make('button', { type: 'button', className: 'button', textContent: t('lib.delete') });
        remove.addEventListener('click', () => removeScan(scan));
        item.append(text, make('div', { className: 'library-actions' }, [open, analyse, remove]));
        list.append(item);
      }
    }
  }

  // Puts a kept board into the editor, as its current (corrected) position,
  // remembering which scan it is so that a correction goes back to it.
  function openBoard(scan, board, analyse) {
    if (!api()) return; // app.js without its hook: nothing to open into
    const [placement, side] = board.fen.split(' ');
    const reading = board.reading && typeof board.reading === 'object' ? board.reading : {};
    api().open({
      ...reading,
      fen: board.fen,
      boardFen: placement,
      sideToMove: side,
      squares: board.corrected ? [] : reading.squares,
      warnings: [],
      scanId: scan.id,
      scanBoard: board.index,
    });
    syncSave();
    if (analyse) $('analyse').click();
  }

  async function removeScan(scan) {
    if (!window.confirm(t('lib.confirmDelete', { name: scan.sourceName || t('lib.scanN', { id: scan.id }) }))) return;
    const res = await fetch(`/api/v1/scans/${scan.id}`, { method: 'DELETE' });
    if (!res.ok) {
      const body = await json(res);
      if (body && body.error) plain(status, body.error); else say(status, 'lib.deleteFailed', { status: res.status });
      return;
    }
    refresh();
  }

  function syncSave() {
    const board = api() && api().board();
    saveRow.hidden = !(state.enabled && board && board.scanId != null);
  }

  save.addEventListener('click', async () => {
    const board = api() && api().board();
    if (!board || board.scanId == null) return;
    const fen = api().fen();
    save.disabled = true;
    say(saveStatus, 'lib.saving');
    try {
      const res = await fetch(`/api/v1/scans/${board.scanId}/boards/${board.scanBoard}/corrections`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ fen }),
      });
      const body = await json(res);
      if (!res.ok) {
        if (body && body.error) plain(saveStatus, body.error); else say(saveStatus, 'lib.notSaved', { status: res.status });
        return;
      }
      if (body.corrected) say(saveStatus, 'lib.saved', { fen: body.fen }); else say(saveStatus, 'lib.savedSame');
      refresh();
    } catch (e) {
      plain(saveStatus, t('err.unreachable', { message: e.message }));
    } finally {
      save.disabled = false;
    }
  });

  function runSearch() {
    const text = fenInput.value.trim();
    state.filters = {
      fen: mode.value === 'fen' ? text : '',
      placement: mode.value === 'placement' ? text : '',
      material: material.value.trim(),
      corrected: onlyCorrected.checked ? 'true' : '',
    };
    state.page = 1;
    refresh();
  }
  search.addEventListener('click', runSearch);
  for (const input of [fenInput, material]) {
    input.addEventListener('keydown', (e) => { if (e.key === 'Enter') runSearch(); });
  }
  window.addEventListener('boardscan-token', refresh);
  prev.addEventListener('click', () => { state.page = Math.max(1, state.page - 1); refresh(); });
  next.addEventListener('click', () => { state.page += 1; refresh(); });

  // A new recognition (the status line changes) or board: refresh the list and the button.
  let pending = null;
  new MutationObserver(() => {
    syncSave();
    plain(saveStatus, '');
    clearTimeout(pending);
    pending = setTimeout(refresh, 300);
  }).observe($('status'), { childList: true, characterData: true, subtree: true });
  const pick = $('board-pick');
  if (pick) pick.addEventListener('change', () => { syncSave(); plain(saveStatus, ''); });
  // Another language: the list is written again in it.
  window.addEventListener('boardscan-lang', () => { if (state.enabled) refresh(); });

  // For share.js: opens board `index` of kept scan `id` in the editor (a shared
  // link); resolves to whether the library had it.
  async function openScan(id, index) {
    let res;
    try { res = await fetch(`/api/v1/scans/${encodeURIComponent(id)}`); } catch (_) { return false; }
    const scan = await json(res);
    if (!res.ok || !scan || !Array.isArray(scan.boards)) return false;
    const board = scan.boards.find((b) => b.index === index) || scan.boards[0];
    if (!board) return false;
    openBoard(scan, board, false);
    return true;
  }
  window.boardscanLibrary = { openScan };

  refresh();
})();
