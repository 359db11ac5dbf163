// The board's stylesheet and script, served as files of their own (/board.css, /board.js) so that the pages carry
// no inline code and the Content-Security-Policy can forbid it. No build: plain CSS and browser JavaScript.

export const BOARD_CSS = `
:root { color-scheme: light dark; --bg: #fff; --fg: #1b1b1b; --muted: #5a5a5a; --line: #d0d0d0;
  --needs: #fff3cd; --ended: #f2f2f2; --accent: #0b57d0; --focus: #ff9800; }
@media (prefers-color-scheme: dark) {
  :root { --bg: #121212; --fg: #e8e8e8; --muted: #a8a8a8; --line: #3a3a3a;
    --needs: #3b3000; --ended: #1d1d1d; --accent: #8ab4f8; }
}
body { background: var(--bg); color: var(--fg); font: 14px/1.4 system-ui, sans-serif; margin: 0 1rem 2rem; }
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 1px; }
.skip { position: absolute; left: -999px; } .skip:focus { left: 1rem; top: .5rem; background: var(--bg); }
.sr { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
header nav a { margin-right: 1rem; }
table { border-collapse: collapse; width: 100%; margin-bottom: 1rem; }
th, td { border-bottom: 1px solid var(--line); padding: .3rem .4rem; text-align: left; vertical-align: top; }
thead th { color: var(--muted); font-weight: 600; font-size: 12px; }
tr.needs { background: var(--needs); } tr.ended { background: var(--ended); color: var(--muted); }
td.num, td.status { white-space: nowrap; } td.num { text-align: right; }
td.summary { max-width: 28rem; }
.goal { display: block; color: var(--muted); font-weight: normal; }
.asked { margin: 0 0 .3rem; }
.actions { display: flex; flex-wrap: wrap; gap: .3rem; }
form.act { display: inline-flex; gap: .2rem; margin: 0; }
button { font: inherit; padding: .15rem .6rem; cursor: pointer; }
input { font: inherit; }
code, pre { font-family: ui-monospace, monospace; }
pre.pane { background: #000; color: #ddd; padding: .5rem; overflow: auto; max-height: 40rem; line-height: 1.15; }
.notice, #notice:not(:empty) { border: 1px solid var(--line); padding: .4rem; }
ol.timeline li { margin-bottom: .2rem; } .current { font-weight: 700; }
.reply { border-left: 3px solid var(--line); padding-left: .8rem; margin-bottom: 1rem; }
`;

export const BOARD_JS = `
'use strict';
(function () {
  var body = document.body;
  function notice(text) { var n = document.getElementById('notice'); if (n) n.textContent = text; }
  function counts() {
    document.querySelectorAll('tbody[data-section]').forEach(function (list) {
      var section = list.getAttribute('data-section');
      var n = list.rows.length;
      var count = document.querySelector('[data-count="' + section + '"]');
      if (count) count.textContent = '(' + n + ')';
      var empty = document.querySelector('[data-empty="' + section + '"]');
      if (empty) empty.hidden = n > 0;
    });
  }
  function place(row) {
    var list = document.getElementById('list-' + row.section);
    if (!list) return;
    var t = document.createElement('template');
    t.innerHTML = row.html.trim();
    var tr = t.content.firstElementChild;
    var before = null;
    for (var i = 0; i < list.rows.length; i++) {
      if (list.rows[i].getAttribute('data-sort') > row.sort) { before = list.rows[i]; break; }
    }
    list.insertBefore(tr, before);
  }
  function apply(changes) {
    var active = document.activeElement && document.activeElement.closest && document.activeElement.closest('tr');
    var activeId = active ? active.id : null;
    if (changes.full) {
      var keep = {};
      changes.upsert.forEach(function (r) { keep['row-' + r.id] = true; });
      document.querySelectorAll('tbody[data-section] tr').forEach(function (tr) { if (!keep[tr.id]) tr.remove(); });
    }
    changes.remove.forEach(function (id) { var tr = document.getElementById('row-' + id); if (tr) tr.remove(); });
    changes.upsert.forEach(function (row) {
      var old = document.getElementById('row-' + row.id);
      // a row someone is typing in keeps its inputs until they are done
      if (old && row.id === (activeId || '').slice(4) && old.querySelector('input:focus')) return;
      if (old) old.remove();
      place(row);
    });
    counts();
  }
  var live = body.getAttribute('data-live');
  if (live && window.EventSource) {
    var source = new EventSource(live + '?since=' + encodeURIComponent(body.getAttribute('data-version') || ''));
    source.addEventListener('rows', function (e) { apply(JSON.parse(e.data)); });
    source.addEventListener('pane', function (e) {
      var pane = document.getElementById('pane'); if (pane) pane.textContent = JSON.parse(e.data).screen;
    });
    source.addEventListener('reload', function () { location.reload(); });
  }
  document.addEventListener('submit', function (e) {
    var form = e.target;
    if (!form.matches || !form.matches('form.act')) return;
    e.preventDefault();
    var buttons = form.querySelectorAll('button');
    buttons.forEach(function (b) { b.disabled = true; });
    notice('Sending…');
    fetch(form.getAttribute('action'), {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Accept': 'application/json', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(new FormData(form)).toString()
    }).then(function (r) { return r.json(); }).then(function (answer) {
      notice(answer.message);
    }).catch(function (error) { notice('failed: ' + error); }).finally(function () {
      buttons.forEach(function (b) { b.disabled = false; });
    });
  });
  // j and k move between rows; Enter follows the focused row's link
  document.addEventListener('keydown', function (e) {
    if (e.target.closest && e.target.closest('input, textarea')) return;
    if (e.key !== 'j' && e.key !== 'k') return;
    var links = Array.prototype.slice.call(document.querySelectorAll('tbody th[scope=row] a'));
    if (links.length === 0) return;
    var at = links.indexOf(document.activeElement);
    var next = e.key === 'j' ? Math.min(links.length - 1, at + 1) : Math.max(0, at - 1);
    links[next].focus();
    e.preventDefault();
  });
  document.addEventListener('click', function (e) {
    var code = e.target.closest && e.target.closest('code.copy');
    if (code && navigator.clipboard) navigator.clipboard.writeText(code.textContent).then(function () { notice('Copied'); });
  });
})();
`;
