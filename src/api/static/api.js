// Talking to the boardscan API: JSON requests, error shapes, and which optional
// routes and request fields this server has (read once from /openapi.json, so a
// feature the server lacks is hidden instead of failing).

import { t } from './i18n.js?v={{asset-version}}';

// Reads an API answer: JSON on success, or the `{error, code}` shape, or whatever else came.
export async function readResponse(res) {
  const text = await res.text();
  let body = null;
  try { body = text ? JSON.parse(text) : null; } catch (_) { body = null; }
  if (res.ok && body) return { ok: true, body };
  if (res.status === 401 && window.boardscanAccess) window.boardscanAccess.ask();
  let message = body && typeof body.error === 'string' ? body.error : null;
  const code = body && body.code ? body.code : null;
  if (!message) {
    message = text && text.length < 300 && !text.trimStart().startsWith('<') ? text.trim() : '';
    const status = `${res.status}${res.statusText ? ' ' + res.statusText : ''}`;
    message = message ? t('err.httpText', { status, text: message }) : t('err.http', { status });
  }
  return { ok: false, status: res.status, message, code };
}

// POSTs a JSON body; always resolves to `{ok, body}` or `{ok: false, message, code, status}`.
export async function postJson(path, body, signal) {
  try {
    const res = await fetch(path, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal,
    });
    return await readResponse(res);
  } catch (e) {
    if (e && e.name === 'AbortError') return { ok: false, aborted: true, message: t('err.cancelled') };
    return { ok: false, message: t('err.unreachable', { message: e.message }) };
  }
}

export async function getJson(path) {
  try {
    return await readResponse(await fetch(path));
  } catch (e) {
    return { ok: false, message: t('err.unreachable', { message: e.message }) };
  }
}

export function showError(box, message, code) {
  box.textContent = '';
  const msg = document.createElement('span');
  msg.className = 'message';
  msg.textContent = message;
  box.append(msg);
  if (code) {
    const c = document.createElement('span');
    c.className = 'code';
    c.textContent = ` (${code})`;
    box.append(c);
  }
  box.hidden = false;
}

export function clearError(box) { box.hidden = true; box.textContent = ''; }

let featuresPromise = null;

// What this server offers beyond recognition and one-shot analysis:
// `{stream, engines, hint, grade, play, lang, engineField}` booleans.
export function features() {
  if (!featuresPromise) {
    featuresPromise = getJson('/openapi.json').then((r) => {
      const paths = (r.ok && r.body && r.body.paths) || {};
      const schemas = (r.ok && r.body && r.body.components && r.body.components.schemas) || {};
      const analyzeFields = (schemas.AnalyzeRequest && schemas.AnalyzeRequest.properties) || {};
      return {
        stream: '/api/v1/analyze/stream' in paths,
        engines: '/api/v1/engines' in paths,
        hint: '/api/v1/hint' in paths,
        grade: '/api/v1/grade' in paths,
        play: '/api/v1/play' in paths,
        lang: 'lang' in analyzeFields,
        engineField: 'engine' in analyzeFields,
      };
    });
  }
  return featuresPromise;
}
