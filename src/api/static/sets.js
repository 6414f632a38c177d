// "This is my set": photos of a physical set in its starting position teach the
// server that set (PUT /api/v1/sets/{name}); a set chosen in the recognition
// options reads photos of a physical board as that set. Hidden when the server
// keeps no library (GET /api/v1/sets answers 404).

import { getJson, readResponse } from './api.js?v={{asset-version}}';
import { plain, say, t } from './i18n.js?v={{asset-version}}';

const $ = (id) => document.getElementById(id);

// Fills the set picker with the sets learnt, keeping `keep` chosen.
async function refresh(keep) {
  const row = $('set-row'), pick = $('opt-set');
  const r = await getJson('/api/v1/sets');
  row.hidden = !r.ok;
  $('set-teach').hidden = !r.ok;
  if (!r.ok) return;
  for (const o of [...pick.options]) if (o.value) o.remove();
  for (const set of r.body) {
    const o = document.createElement('option');
    o.value = set.name;
    o.textContent = set.name;
    pick.append(o);
  }
  if (keep && [...pick.options].some((o) => o.value === keep)) pick.value = keep;
}

async function learn() {
  const name = $('set-name').value.trim();
  const files = [...$('set-photos').files];
  const status = $('set-status');
  if (!name || !files.length) { say(status, 'set.needBoth'); return; }
  const form = new FormData();
  for (const f of files) form.append('photo', f, f.name);
  say(status, 'set.learning', { n: files.length });
  $('set-learn').disabled = true;
  let result;
  try {
    const res = await fetch(`/api/v1/sets/${encodeURIComponent(name)}`, { method: 'PUT', body: form });
    result = await readResponse(res);
  } catch (e) {
    result = { ok: false, message: t('err.unreachable', { message: e.message }) };
  } finally {
    $('set-learn').disabled = false;
  }
  if (!result.ok) { plain(status, result.message); return; }
  say(status, 'set.learnt', { name: result.body.name, n: result.body.photos });
  $('set-photos').value = '';
  await refresh(result.body.name);
}

// The set chosen for the next recognition, or null.
export function chosenSet() {
  const pick = $('opt-set');
  return pick && !$('set-row').hidden && pick.value ? pick.value : null;
}

export function initSets() {
  $('set-learn').addEventListener('click', learn);
  refresh(null);
}
