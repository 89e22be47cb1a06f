(function () {
  'use strict';
  // Ticks per page of lanes and flows per page: a run of any size draws
  // only what one screen shows.
  var WINDOW = 30;
  var FLOW_PAGE = 100;
  // Events drawn per lane and tick before a "more" button.
  var CELL = 6;
  var page = JSON.parse(document.getElementById('amr-data').textContent);
  var LANES = page.lanes;
  var cache = {};

  // runData parses a run's data once; a large run's comes compressed
  // and is unpacked here, when the run is first opened.
  function runData(id) {
    if (!cache[id]) {
      var node = document.getElementById('data-' + id);
      var text;
      if (node.dataset.encoding === 'gzip-base64') {
        var bin = atob(JSON.parse(node.textContent)), bytes = new Uint8Array(bin.length);
        for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
        var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
        text = new Response(stream).text();
      } else {
        text = Promise.resolve(node.textContent);
      }
      cache[id] = text.then(function (t) { var r = JSON.parse(t); index(r); return r; });
    }
    return cache[id];
  }

  // index finds, once per run, where each tick's events start, which ticks
  // hold violations or forced advances, and which violation each
  // violation event is.
  function index(r) {
    r.start = [];
    r.violationTicks = [];
    r.forcedTicks = {};
    var k = -1, v = 0;
    r.events.forEach(function (e, i) {
      if (k < 0 || r.ticks[k] !== e.tick) { k++; r.start[k] = i; }
      if (e.lane === 'violations') {
        e.v = ++v;
        if (r.violationTicks[r.violationTicks.length - 1] !== k) r.violationTicks.push(k);
      }
      if (e.what === 'forced') r.forcedTicks[e.tick] = true;
    });
    r.start[r.ticks.length] = r.events.length;
  }

  function el(tag, attrs, text) {
    var n = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { n.setAttribute(k, attrs[k]); });
    if (text !== undefined) n.textContent = text;
    return n;
  }

  function lineAt(r, ref) {
    var i = ref.lastIndexOf(':');
    if (i < 0) return null;
    var lines = r.files[ref.slice(0, i)], n = +ref.slice(i + 1);
    if (!lines || !(n >= 1 && n <= lines.length)) return null;
    return lines[n - 1];
  }

  // showRecord fills a detail panel with an event's record: every
  // file:line it refers to, the line itself, and a state snapshot.
  function showRecord(panel, r, runID, e, heading) {
    panel.textContent = '';
    panel.appendChild(el('h4', {}, heading));
    panel.appendChild(el('p', {}, e.text));
    (e.ref || '').split(' ').filter(Boolean).forEach(function (ref) {
      var line = lineAt(r, ref);
      var p = el('p', {class: 'ref'});
      p.appendChild(el('code', {}, ref));
      panel.appendChild(p);
      panel.appendChild(el('pre', {class: 'line'}, line === null ? '(not among the kept files)' : line));
    });
    if (e.record) panel.appendChild(el('pre', {class: 'line'}, JSON.stringify(JSON.parse(e.record), null, 2)));
    if (e.v) {
      var a = el('a', {href: '#' + runID + '-v' + e.v}, 'the violation in the list');
      panel.appendChild(a);
    }
  }

  function firstTickAtOrAfter(r, tick) {
    for (var k = 0; k < r.ticks.length; k++) if (r.ticks[k] >= tick) return k;
    return Math.max(r.ticks.length - 1, 0);
  }

  function drawLanes(host, r, runID, startTick) {
    var at = Math.max(firstTickAtOrAfter(r, startTick) - 2, 0);
    host.appendChild(el('h3', {}, 'Lanes over virtual ticks'));
    var controls = el('div', {class: 'controls', role: 'group', 'aria-label': 'Move through the ticks'});
    var prev = el('button', {type: 'button'}, '◀ earlier');
    var next = el('button', {type: 'button'}, 'later ▶');
    var nextV = el('button', {type: 'button'}, 'next violation');
    var label = el('label', {}, 'tick ');
    var input = el('input', {type: 'number', min: '0', size: '6', 'aria-label': 'Go to tick'});
    label.appendChild(input);
    var go = el('button', {type: 'button'}, 'go');
    var where = el('span', {class: 'sub', 'aria-live': 'polite'});
    [prev, next, nextV, label, go, where].forEach(function (n) { controls.appendChild(n); });
    var grid = el('div', {class: 'scroll lanes-scroll'});
    var panel = el('div', {class: 'detail', role: 'region', 'aria-live': 'polite', 'aria-label': 'Selected event'}, 'Select an event to see its record.');
    host.appendChild(controls);
    host.appendChild(grid);
    host.appendChild(panel);

    // fillCell draws a lane's events at one tick, at most limit of them
    // and a button for the rest: a busy tick stays one screen tall.
    function fillCell(td, k, lane, limit) {
      td.textContent = '';
      var shown = 0, more = 0;
      for (var i = r.start[k]; i < r.start[k + 1]; i++) {
        var e = r.events[i];
        if (e.lane !== lane) continue;
        if (shown >= limit && e.what !== 'violation') { more++; continue; }
        shown++;
        td.appendChild(el('button', {type: 'button', class: 'ev ' + e.what + (e.deferred ? ' deferred' : ''), 'data-i': String(i),
          title: e.text, 'aria-label': 'tick ' + e.tick + ', ' + lane + ': ' + e.what + ' ' + e.text}, e.what === 'violation' ? '! ' + e.id : e.what));
      }
      if (more) {
        var b = el('button', {type: 'button', class: 'more'}, '+' + more + ' more');
        b.addEventListener('click', function () { fillCell(td, k, lane, Infinity); });
        td.appendChild(b);
      }
    }

    function render() {
      grid.textContent = '';
      var end = Math.min(at + WINDOW, r.ticks.length);
      var table = el('table', {class: 'lanes'});
      var head = el('tr');
      head.appendChild(el('th', {scope: 'col'}, 'lane'));
      for (var k = at; k < end; k++) {
        var t = r.ticks[k];
        head.appendChild(el('th', {scope: 'col', class: r.forcedTicks[t] ? 'forced' : ''}, String(t)));
      }
      var thead = el('thead');
      thead.appendChild(head);
      table.appendChild(thead);
      var body = el('tbody');
      LANES.forEach(function (lane) {
        var tr = el('tr', {'data-lane': lane});
        tr.appendChild(el('th', {scope: 'row'}, lane));
        for (var k = at; k < end; k++) {
          var td = el('td');
          fillCell(td, k, lane, CELL);
          tr.appendChild(td);
        }
        body.appendChild(tr);
      });
      table.appendChild(body);
      grid.appendChild(table);
      where.textContent = r.ticks.length ? 'ticks ' + r.ticks[at] + '–' + r.ticks[end - 1] + ' of ' + r.ticks.length + ' with events' : 'no events';
      prev.disabled = at === 0;
      next.disabled = end >= r.ticks.length;
    }

    grid.addEventListener('click', function (ev) {
      var b = ev.target.closest('button.ev');
      if (!b) return;
      grid.querySelectorAll('button.ev[aria-pressed=true]').forEach(function (x) { x.setAttribute('aria-pressed', 'false'); });
      b.setAttribute('aria-pressed', 'true');
      var e = r.events[+b.dataset.i];
      showRecord(panel, r, runID, e, 'tick ' + e.tick + ' · ' + e.who + ' · ' + e.what + (e.deferred ? ' (deferred)' : ''));
    });
    grid.addEventListener('keydown', function (ev) {
      if (ev.key !== 'ArrowRight' && ev.key !== 'ArrowLeft') return;
      var all = Array.prototype.slice.call(grid.querySelectorAll('button.ev'));
      var i = all.indexOf(document.activeElement);
      if (i < 0) return;
      var j = i + (ev.key === 'ArrowRight' ? 1 : -1);
      if (j >= 0 && j < all.length) { all[j].focus(); ev.preventDefault(); }
    });
    prev.addEventListener('click', function () { at = Math.max(at - WINDOW, 0); render(); });
    next.addEventListener('click', function () { at = Math.min(at + WINDOW, Math.max(r.ticks.length - 1, 0)); render(); });
    nextV.addEventListener('click', function () {
      var end = at + WINDOW;
      var k = r.violationTicks.find(function (k) { return k >= end; });
      if (k === undefined) k = r.violationTicks[0];
      if (k !== undefined) { at = Math.max(k - 2, 0); render(); }
    });
    go.addEventListener('click', function () { at = firstTickAtOrAfter(r, +input.value || 0); render(); });
    render();
  }

  function drawFlows(host, r) {
    host.appendChild(el('h3', {}, 'Message flow per work item'));
    var controls = el('div', {class: 'controls'});
    var label = el('label', {}, 'filter by id ');
    var filter = el('input', {type: 'search', 'aria-label': 'Filter the flows by message or work id'});
    label.appendChild(filter);
    controls.appendChild(label);
    var count = el('span', {class: 'sub', 'aria-live': 'polite'});
    controls.appendChild(count);
    var wrap = el('div', {class: 'scroll'});
    var more = el('button', {type: 'button'}, 'show more');
    var panel = el('div', {class: 'detail', role: 'region', 'aria-live': 'polite', 'aria-label': 'Selected step'}, 'Select a step to see its record.');
    host.appendChild(controls);
    host.appendChild(wrap);
    host.appendChild(more);
    host.appendChild(panel);
    var shown = FLOW_PAGE;

    function render() {
      var q = filter.value.trim();
      var list = r.flows.filter(function (f) { return !q || (f.message_id || '').indexOf(q) >= 0 || (f.work_id || '').indexOf(q) >= 0; });
      wrap.textContent = '';
      var table = el('table', {class: 'flows'});
      var head = el('tr');
      ['message', 'work item', 'message → admission → claims → draft → approval → send / resolution'].forEach(function (h) { head.appendChild(el('th', {scope: 'col'}, h)); });
      var thead = el('thead');
      thead.appendChild(head);
      table.appendChild(thead);
      var body = el('tbody');
      list.slice(0, shown).forEach(function (f) {
        var tr = el('tr', {'data-work': f.work_id || '', 'data-message': f.message_id || ''});
        tr.appendChild(el('td', {}, f.message_id || '—'));
        tr.appendChild(el('td', {}, f.work_id || '—'));
        var td = el('td');
        f.steps.forEach(function (s, i) {
          if (i) td.appendChild(document.createTextNode(' → '));
          var b = el('button', {type: 'button', class: 'ev ' + s.stage, title: s.text, 'data-ref': s.ref}, s.stage + ' @' + s.tick);
          b.addEventListener('click', function () { showRecord(panel, r, '', {text: s.text, ref: s.ref}, s.stage + ' at tick ' + s.tick); });
          td.appendChild(b);
        });
        tr.appendChild(td);
        body.appendChild(tr);
      });
      table.appendChild(body);
      wrap.appendChild(table);
      count.textContent = Math.min(shown, list.length) + ' of ' + list.length + ' flow(s)';
      more.hidden = shown >= list.length;
    }
    filter.addEventListener('input', function () { shown = FLOW_PAGE; render(); });
    more.addEventListener('click', function () { shown += FLOW_PAGE; render(); });
    render();
  }

  // draw draws a run's lanes and flows once; it resolves when they are on
  // the page.
  function draw(details) {
    if (!details.drawing) {
      var id = details.dataset.run;
      details.drawing = runData(id).then(function (r) {
        var host = details.querySelector('.lanes-host');
        host.textContent = '';
        drawLanes(host, r, id, +details.dataset.startTick || 0);
        drawFlows(host, r);
        details.dataset.drawn = '1';
      });
    }
    return details.drawing;
  }

  function open(id) {
    var d = document.getElementById(id);
    if (!d) return Promise.resolve();
    d.open = true;
    return draw(d);
  }

  document.querySelectorAll('details.run').forEach(function (d) {
    d.addEventListener('toggle', function () { if (d.open) draw(d); });
  });

  // A link to a run or to one of its violations opens the run.
  function follow() {
    var t = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    var d = t && t.closest('details.run');
    if (d) { open(d.id); t.scrollIntoView(); }
  }
  window.addEventListener('hashchange', follow);
  window.addEventListener('beforeprint', function () {
    document.querySelectorAll('details.run').forEach(function (d) { open(d.id); });
  });
  window.amr = {open: open, data: page};
  follow();
  document.documentElement.setAttribute('data-ready', '1');
})();
