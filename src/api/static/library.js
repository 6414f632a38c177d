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

  // ---------- the Library card ----------

  const status = make('p', { id: 'library-status', className: 'muted small', role: 'status' });
  const fenInput = make('input', { id: 'library-fen', type: 'text', spellcheck: false, placeholder: 'FEN or placement', size: 36 });
  fenInput.dataset.testid = 'library-fen';
  const mode = make('select', { id: 'library-mode' }, [
    make('option', { value: 'placement', textContent: 'same placement, any side to move' }),
    make('option', { value: 'fen', textContent: 'exact FEN' }),
  ]);
  const material = make('input', { id: 'library-material', type: 'text', spellcheck: false, placeholder: 'material, e.g. KRvKR', size: 12 });
  material.dataset.testid = 'library-material';
  const onlyCorrected = make('input', { id: 'library-corrected', type: 'checkbox' });
  const search = make('button', { type: 'button', className: 'button', textContent: 'Search' });
  search.dataset.testid = 'library-search';
  const list = make('ol', { id: 'library-list', className: 'library-list' });
  list.dataset.testid = 'library-list';
  const prev = make('button', { type: 'button', className: 'button', textContent: '← Newer' });
  const next = make('button', { type: 'button', className: 'button', textContent: 'Older →' });
  const pageInfo = make('span', { className: 'muted small' });
  const exports = make('p', { className: 'links' });
  const card = make('section', { id: 'library', className: 'card' }, [
    make('h2', { id: 'library-title', textContent: 'Library' }),
    make('p', { className: 'muted small', textContent: 'Every picture read here is kept with its boards; corrected boards are marked ✎.' }),
    make('div', { className: 'option-row library-search' }, [
      fenInput, mode, material,
      make('label', {}, [onlyCorrected, ' corrected only']), search,
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

  const save = make('button', { type: 'button', className: 'button primary', id: 'save-correction', textContent: 'Save correction' });
  save.dataset.testid = 'save-correction';
  save.title = 'Keep the position in the editor as the true position of this board in the library';
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
      window.boardscanAccess.ask('The scan library needs the service\'s access token.');
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
      status.textContent = `Could not reach the server: ${e.message}`;
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
      status.textContent = 'The library needs the service\'s access token.';
      return;
    }
    if (!res.ok) {
      status.textContent = (body && body.error) || `The library answered ${res.status}.`;
      return;
    }
    state.total = body.total;
    status.textContent = body.total ? `${body.total} scan(s).` : 'No scans yet: read a picture above.';
    render(body.scans);
    const pages = Math.max(1, Math.ceil(body.total / PER_PAGE));
    pageInfo.textContent = ` page ${state.page} of ${pages} `;
    prev.disabled = state.page <= 1;
    next.disabled = state.page >= pages;
    exports.textContent = 'Export: ';
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
            alt: `Board ${board.index + 1} of ${scan.sourceName || `scan ${scan.id}`}`,
            width: 96, height: 96, loading: 'lazy', className: 'library-thumb',
          }));
        }
        const source = (scan.sourceName || `scan ${scan.id}`) + (scan.page ? `, page ${scan.page}` : '') + (scan.boards.length > 1 ? `, board ${board.index + 1}` : '');
        const fen = make('code', { className: 'library-fen', textContent: board.fen });
        fen.dataset.testid = 'library-item-fen';
        const text = make('div', { className: 'library-text' }, [
          make('div', { textContent: source }),
          fen,
          make('div', { className: 'muted small', textContent: `${board.material} · read ${new Date(scan.scannedAt).toLocaleString()} · confidence ${(board.confidence * 100).toFixed(0)}%` }),
        ]);
        if (board.corrected) {
          const mark = make('span', { className: 'library-corrected', textContent: `✎ corrected (${board.corrections.length})`, title: `read as ${board.readFen}` });
          mark.dataset.testid = 'library-corrected';
          text.firstChild.append(' ', mark);
        }
        const open = make('button', { type: 'button', className: 'button', textContent: 'Open in editor' });
        open.dataset.testid = 'library-open';
        open.addEventListener('click', () => openBoard(scan, board, false));
        const analyse = make('button', { type: 'button', className: 'button', textContent: 'Analyse' });
        analyse.addEventListener('click', () => openBoard(scan, board, true));
        const remove = make('button', { type: 'button', className: 'button', textContent: 'Delete' });
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
    if (!window.confirm(`Delete ${scan.sourceName || `scan ${scan.id}`} from the library?`)) return;
    const res = await fetch(`/api/v1/scans/${scan.id}`, { method: 'DELETE' });
    if (!res.ok) {
      const body = await json(res);
      status.textContent = (body && body.error) || `Delete failed (${res.status}).`;
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
    saveStatus.textContent = 'Saving…';
    try {
      const res = await fetch(`/api/v1/scans/${board.scanId}/boards/${board.scanBoard}/corrections`, {
        method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ fen }),
      });
      const body = await json(res);
      if (!res.ok) {
        saveStatus.textContent = (body && body.error) || `Not saved (${res.status}).`;
        return;
      }
      saveStatus.textContent = body.corrected
        ? `Correction saved: the library now holds ${body.fen}.`
        : 'Saved: the board is as it was read.';
      refresh();
    } catch (e) {
      saveStatus.textContent = `Could not reach the server: ${e.message}`;
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
    saveStatus.textContent = '';
    clearTimeout(pending);
    pending = setTimeout(refresh, 300);
  }).observe($('status'), { childList: true, characterData: true, subtree: true });
  const pick = $('board-pick');
  if (pick) pick.addEventListener('change', () => { syncSave(); saveStatus.textContent = ''; });

  refresh();
})();
