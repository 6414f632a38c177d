// The service's access token, when it asks for one (a 401 `unauthorized`
// answer): a form under the title stores it in the `boardscan_token` cookie,
// which every request of the page then shows (thumbnails and streams too), and
// tells the page with a `boardscan-token` event so it can ask again.
(() => {
  const form = document.getElementById('access-form');
  const input = document.getElementById('access-token');
  const note = document.getElementById('access-note');

  function ask(message) {
    const i18n = window.boardscanI18n;
    if (message) { delete note.dataset.i18n; note.textContent = message; } else if (i18n) i18n.say(note, 'access.needed');
    else note.textContent = 'This service needs its access token for that.';
    form.hidden = false;
    input.focus();
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const token = input.value.trim();
    if (!token) return;
    document.cookie = `boardscan_token=${encodeURIComponent(token)}; path=/; SameSite=Strict`;
    input.value = '';
    form.hidden = true;
    window.dispatchEvent(new Event('boardscan-token'));
  });

  window.boardscanAccess = { ask };
})();
