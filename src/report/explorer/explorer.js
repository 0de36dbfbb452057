// vkleak report explorer: makes the server-rendered page interactive. Every view is built from
// the run's lifetimes embedded in the page (script#vkleak-explorer-data; CONTRACT.md in this folder) or
// from the server-side HTML; without this script the page still reads whole.
// Plain DOM, no framework, no network; runs in Chromium and Firefox.
'use strict';

(function () {
  const SVG = 'http://www.w3.org/2000/svg';
  const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#59a14f', '#b07aa1',
                   '#76b7b2', '#edc948', '#ff9da7', '#9c755f', '#3b3b98'];
  const OTHER_COLOR = '#9aa0a6';
  const VIEWS = ['timeline', 'flamegraph', 'findings', 'retainers', 'diff'];
  const PATH_SEP = ' > ';  // between the functions of a call-site path, outermost first

  // ---------------------------------------------------------------------------------------------
  // Helpers
  // ---------------------------------------------------------------------------------------------

  const $ = (sel, root) => (root || document).querySelector(sel);
  const $$ = (sel, root) => Array.from((root || document).querySelectorAll(sel));

  function el(tag, attrs, text) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function svg(tag, attrs, text) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    if (text !== undefined) e.textContent = text;
    return e;
  }

  function formatCount(n) {
    return Math.round(n).toLocaleString('en-US');
  }

  // "1.5 MiB": binary units, at most two decimals (as the server-side charts label bytes).
  function formatBytes(n) {
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
    if (n <= 0) return n < 0 ? '-' + formatBytes(-n) : '0 B';
    let u = 0;
    while (n >= 1024 && u + 1 < units.length) {
      n /= 1024;
      ++u;
    }
    return (Math.round(n * 100) / 100).toString() + ' ' + units[u];
  }

  // Memory bound to exactly one object: counted as an object, its bytes with that object.
  const ATTACHED_NOTE = 'bytes counted with the object it is bound to';

  // A bytes cell: greyed with the explanation when its objects are attached memory (a group, or a
  // type all of whose bytes are so counted); titled when only some are.
  function bytesCell(attrs, v, attached) {
    const td = el('td', attrs, formatBytes(v));
    if (attached) {
      td.title = 'memory bound to exactly one object: ' + ATTACHED_NOTE;
      if (v === 0) td.classList.add('vk-attached');
    }
    return td;
  }

  function formatMetric(metric, n) {
    return metric === 'bytes' ? formatBytes(n) : formatCount(n);
  }

  // Axis ticks at 1, 2, 5 x 10^k (bytes: powers of two within a binary unit).
  function niceStep(max, target, bytes) {
    const raw = max / Math.max(1, target);
    if (raw <= 0) return 1;
    if (bytes) {
      let unit = 1;
      while (raw / unit >= 1024) unit *= 1024;
      let f = 1;
      while (f < raw / unit && f < 1024) f *= 2;
      return f * unit;
    }
    const mag = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const f of [1, 2, 5, 10]) {
      if (f * mag >= raw) return Math.max(1, f * mag);
    }
    return Math.max(1, 10 * mag);
  }

  // ---------------------------------------------------------------------------------------------
  // The embedded data
  // ---------------------------------------------------------------------------------------------

  function loadData() {
    const node = document.getElementById('vkleak-explorer-data');
    if (!node) return null;
    const d = JSON.parse(node.textContent);
    if (!d || d.version !== 1 || !Array.isArray(d.snapshots) || d.snapshots.length === 0) {
      return null;
    }
    const frames = d.frames || [];
    const strings = d.strings || [];
    const str = (i) => (i >= 0 && i < strings.length ? strings[i] : '');
    // Call-site paths (data.paths, CONTRACT.md): a stack's functions, outermost first, without
    // lines. The one key the views group, label and find call sites by.
    const paths = (d.paths || []).map((p) => p.map((f) => str(f) || '(unknown)'));
    const groups = (d.groups || []).map((g, i) => {
      const stack = g[1] >= 0 && d.stacks && d.stacks[g[1]] ? d.stacks[g[1]] : [];
      const path = g[4] >= 0 && paths[g[4]] ? paths[g[4]] : [];
      return {index: i, type: d.types[g[0]] || '?', typeIndex: g[0], stack: stack, path: path,
              pathIndex: g[4] >= 0 ? g[4] : -1, name: g[2] || '', fn: path.length ? path[path.length - 1] : '',
              attached: g[3] === 1};
    });
    // Sites: the groups with the same type, name pattern, path and attached state, one legend
    // entry, selection row and diff row each (their stacks differ in lines only).
    const sites = [];
    const siteOf = new Map();
    for (const g of groups) {
      const key = g.typeIndex + '\u0000' + g.name + '\u0000' + g.pathIndex + '\u0000' + (g.attached ? 1 : 0);
      let s = siteOf.get(key);
      if (s === undefined) {
        s = sites.length;
        siteOf.set(key, s);
        sites.push({index: s, type: g.type, typeIndex: g.typeIndex, name: g.name, path: g.path,
                    pathIndex: g.pathIndex, fn: g.fn, attached: g.attached, groups: []});
      }
      sites[s].groups.push(g.index);
      g.site = s;
    }
    // A path's label: its shortest tail (the innermost functions) that no other path of the run
    // ends with, or the whole path; so a helper called from two places reads "caller > helper"
    // for each. Tails are interned one function longer per round: linear in the paths' frames.
    const used = Array.from(new Set(groups.filter((g) => g.pathIndex >= 0).map((g) => g.pathIndex)));
    const tails = new Map();
    const tailId = new Map(used.map((p) => [p, '']));
    for (let k = 1; tails.size < used.length; ++k) {
      const count = new Map();
      for (const p of used) {
        const path = paths[p];
        if (path.length < k) continue;
        const id = tailId.get(p) + '\u0000' + path[path.length - k];
        tailId.set(p, id);
        count.set(id, (count.get(id) || 0) + 1);
      }
      for (const p of used) {
        const path = paths[p];
        if (tails.has(p) || (path.length > k && count.get(tailId.get(p)) > 1)) continue;
        tails.set(p, path.slice(path.length - Math.min(k, path.length)).join(PATH_SEP));
      }
    }
    for (const x of sites.concat(groups)) {
      x.pathText = x.path.join(PATH_SEP);
      x.short = x.pathIndex >= 0 ? tails.get(x.pathIndex) : '';
      let label = x.type;
      if (x.name) label += ' "' + x.name + '"';
      if (x.short) label += ' @ ' + x.short;
      if (x.attached) label += ' (bound to one object)';
      x.label = label;
    }
    const raw = d.cells || [];
    const cells = [];
    for (let i = 0; i + 4 < raw.length; i += 5) {
      // site: the cell's call site (index into sites), -1 for a group the data does not list.
      cells.push({group: raw[i], site: groups[raw[i]] ? groups[raw[i]].site : -1, first: raw[i + 1],
                  last: raw[i + 2], count: raw[i + 3], bytes: raw[i + 4]});
    }
    return {snapshots: d.snapshots, types: d.types || [], strings: strings, frames: frames,
            groups: groups, sites: sites, cells: cells, omitted: d.omitted || {},
            findings: d.findings || [], str: str};
  }

  // What was alive at snapshot s, per key: keyOf(cell) -> index < keys. Difference arrays, so
  // the cost is cells + keys * snapshots, not cells * snapshots.
  function aliveByKey(data, keys, keyOf, metric) {
    const n = data.snapshots.length;
    const acc = new Float64Array(keys * (n + 1));
    for (const c of data.cells) {
      const k = keyOf(c);
      if (k < 0) continue;
      const v = metric === 'bytes' ? c.bytes : c.count;
      acc[k * (n + 1) + c.first] += v;
      acc[k * (n + 1) + Math.min(c.last, n - 1) + 1] -= v;
    }
    const out = [];
    for (let k = 0; k < keys; ++k) {
      const row = new Array(n);
      let run = 0;
      for (let s = 0; s < n; ++s) {
        run += acc[k * (n + 1) + s];
        row[s] = run;
      }
      out.push(row);
    }
    return out;
  }

  function snapshotText(snap) {
    let t = 'snapshot ' + snap.sequence + ' \u00b7 frame ' + snap.frame + ' \u00b7 ' + snap.reason;
    if (snap.label !== null && snap.label !== undefined && snap.label !== '') t += ' \u00b7 ' + snap.label;
    return t;
  }

  function snapshotOptions(select, data, selected) {
    select.textContent = '';
    data.snapshots.forEach((snap, i) => {
      const label = '#' + i + ' \u00b7 frame ' + snap.frame + (snap.label ? ' \u00b7 ' + snap.label : '');
      const o = el('option', {value: String(i)}, label);
      if (i === selected) o.selected = true;
      select.appendChild(o);
    });
  }

  // ---------------------------------------------------------------------------------------------
  // Timeline: what was alive at each snapshot, stacked; a brush selects a range of snapshots
  // ---------------------------------------------------------------------------------------------

  function buildTimeline(data) {
    const root = $('#timeline-explorer');
    if (!root) return;
    root.hidden = false;
    const n = data.snapshots.length;
    const state = {mode: 'types', metric: 'bytes', from: 0, to: n - 1};
    const plot = $('#timeline-plot');
    const legend = $('#timeline-legend');
    const tip = $('#timeline-tip');
    const fromInput = $('#timeline-from');
    const toInput = $('#timeline-to');
    fromInput.max = toInput.max = String(n - 1);
    const W = 960, H = 300, L = 76, R = 12, T = 12, B = 42;
    const pw = W - L - R, ph = H - T - B;
    const colW = pw / n;
    // The x axis is proportional to frames: each snapshot's bar is centred at its frame; its
    // column (hover, brush) reaches halfway to its neighbours. Snapshots at one frame share
    // that frame's column side by side; a run whose snapshots are all at one frame (or whose
    // frames go back, which one frame counter never does) is spaced evenly.
    const frames = data.snapshots.map((snap) => Number(snap.frame) || 0);
    const f0 = frames[0], f1 = frames[n - 1];
    const proportional = f1 > f0 && frames.every((f, i) => i === 0 || f >= frames[i - 1]);
    const pad = Math.min(colW / 2, 28);
    const xOfFrame = (f) => L + pad + (pw - 2 * pad) * (proportional ? (f - f0) / (f1 - f0) : 0.5);
    const cols = (() => {
      if (!proportional) return frames.map((f, s) => ({left: L + colW * s, right: L + colW * (s + 1)}));
      const centre = frames.map(xOfFrame);
      const out = [];
      for (let s = 0; s < n;) {
        let e = s;
        while (e + 1 < n && frames[e + 1] === frames[s]) ++e;
        const left = s === 0 ? L : (centre[s - 1] + centre[s]) / 2;
        const right = e === n - 1 ? L + pw : (centre[e] + centre[e + 1]) / 2;
        // Several snapshots at one frame: its column split among them, in order.
        const lo = e > s ? Math.max(left, centre[s] - (e - s + 1) * 6) : left;
        const hi = e > s ? Math.min(right, centre[s] + (e - s + 1) * 6) : right;
        for (let k = s; k <= e; ++k) {
          const w = (hi - lo) / (e - s + 1);
          out.push({left: e > s ? lo + w * (k - s) : left, right: e > s ? lo + w * (k - s + 1) : right});
        }
        s = e + 1;
      }
      return out;
    })();
    const centreOf = (s) => (proportional && frames.indexOf(frames[s]) === frames.lastIndexOf(frames[s])
                               ? xOfFrame(frames[s]) : (cols[s].left + cols[s].right) / 2);
    // A bar: narrower than its column and than the even spacing would give, inside the plot,
    // at most 56 units wide.
    const barWidth = (s) => {
      const c = centreOf(s);
      const room = Math.min(cols[s].right - cols[s].left, colW) * (n > 60 ? 0.92 : 0.76);
      return Math.max(1, Math.min(room, 56, 2 * (c - L), 2 * (L + pw - c)));
    };
    let columns = [];

    // The stacked series: every type, or the biggest call-site groups, the rest as "other".
    function series() {
      return state.mode === 'types' ? typeSeries() : groupSeries();
    }

    function typeSeries() {
      const maxSeries = 9;
      const keyOf = (c) => (data.groups[c.group] ? data.groups[c.group].typeIndex : -1);
      const rows = aliveByKey(data, data.types.length, keyOf, state.metric);
      const order = rows.map((r, k) => ({k: k, peak: Math.max(0, ...r)}))
                        .filter((x) => x.peak > 0)
                        .sort((a, b) => b.peak - a.peak);
      const out = [];
      const other = new Array(n).fill(0);
      let others = 0;
      order.forEach((x, i) => {
        if (i < maxSeries || order.length === maxSeries + 1) {
          out.push({key: data.types[x.k], label: data.types[x.k], values: rows[x.k],
                    color: PALETTE[i % PALETTE.length]});
        } else {
          ++others;
          rows[x.k].forEach((v, s) => { other[s] += v; });
        }
      });
      if (others > 0) {
        out.push({key: 'other', label: 'other (' + others + ' types)', values: other, color: OTHER_COLOR});
      }
      return out;
    }

    // The call sites (data.sites) that held the most over the run (value x snapshots alive: one
    // pass over the cells, however many there are), each its own series; the rest summed.
    function groupSeries() {
      const maxSeries = 8;
      const area = new Map();
      for (const c of data.cells) {
        const v = (state.metric === 'bytes' ? c.bytes : c.count) * (c.last - c.first + 1);
        const site = c.site;
        area.set(site, (area.get(site) || 0) + v);
      }
      const top = Array.from(area.entries()).filter((e) => e[1] > 0)
                       .sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, maxSeries).map((e) => e[0]);
      const slot = new Map(top.map((g, i) => [g, i]));
      const rows = aliveByKey(data, top.length, (c) => (slot.has(c.site) ? slot.get(c.site) : -1),
                              state.metric);
      const total = aliveByKey(data, 1, () => 0, state.metric)[0];
      const out = top.map((k, i) => ({key: String(k), label: data.sites[k].label, title: data.sites[k].pathText,
                                      values: rows[i], color: PALETTE[i % PALETTE.length]}));
      const other = total.map((v, s) => v - rows.reduce((sum, r) => sum + r[s], 0));
      const others = area.size - top.length;
      if (others > 0 && other.some((v) => v > 0)) {
        out.push({key: 'other', label: 'other (' + others + ' call sites)', values: other,
                  color: OTHER_COLOR});
      }
      return out;
    }

    function draw() {
      const list = series();
      let max = 0;
      for (let s = 0; s < n; ++s) {
        let sum = 0;
        for (const x of list) sum += x.values[s];
        max = Math.max(max, sum);
      }
      const step = niceStep(max || 1, 5, state.metric === 'bytes');
      const top = step * Math.max(1, Math.ceil((max || 1) / step - 1e-9));
      const y = (v) => T + ph - (v / top) * ph;
      const chart = svg('svg', {id: 'timeline-chart', viewBox: '0 0 ' + W + ' ' + H, role: 'img',
                                'aria-label': 'Live ' + (state.metric === 'bytes' ? 'bytes' : 'objects') +
                                              ' per snapshot, stacked by ' +
                                              (state.mode === 'types' ? 'type' : 'call site')});
      chart.appendChild(svg('rect', {x: L, y: T, width: pw, height: ph, class: 'vk-plot-bg'}));
      const axis = svg('g', {class: 'vk-axis vk-axis-y'});
      for (let v = 0; v <= top + 1e-9; v += step) {
        axis.appendChild(svg('line', {class: 'vk-grid', x1: L, x2: L + pw, y1: y(v), y2: y(v)}));
        axis.appendChild(svg('text', {class: 'vk-tick-label', x: L - 8, y: y(v) + 4,
                                      'text-anchor': 'end'}, formatMetric(state.metric, v)));
      }
      axis.appendChild(svg('text', {class: 'vk-axis-label', transform: 'translate(16 ' + (T + ph / 2) +
                                    ') rotate(-90)', 'text-anchor': 'middle'},
                           state.metric === 'bytes' ? 'live bytes' : 'live objects'));
      chart.appendChild(axis);
      const xAxis = svg('g', {class: 'vk-axis vk-axis-x'});
      xAxis.appendChild(svg('line', {class: 'vk-axis-line', x1: L, x2: L + pw, y1: T + ph, y2: T + ph}));
      if (proportional) {
        // Ticks at round frames (1, 2, 5 x 10^k apart), where those frames are.
        const fstep = niceStep(f1 - f0, 8, false);
        for (let f = Math.ceil(f0 / fstep) * fstep; f <= f1; f += fstep) {
          xAxis.appendChild(svg('line', {class: 'vk-tick', x1: xOfFrame(f), x2: xOfFrame(f), y1: T + ph,
                                         y2: T + ph + 4}));
          xAxis.appendChild(svg('text', {class: 'vk-tick-label vk-frame-tick', 'data-frame': String(f),
                                         x: xOfFrame(f), y: T + ph + 16, 'text-anchor': 'middle'},
                                formatCount(f)));
        }
      } else {
        // Evenly spaced: each column labelled with its frame.
        const every = Math.max(1, Math.ceil(n / 12));
        for (let s = 0; s < n; s += every) {
          xAxis.appendChild(svg('text', {class: 'vk-tick-label vk-frame-tick', 'data-frame': String(frames[s]),
                                         x: L + colW * (s + 0.5), y: T + ph + 16, 'text-anchor': 'middle'},
                                formatCount(frames[s])));
        }
      }
      xAxis.appendChild(svg('text', {class: 'vk-axis-label', x: L + pw / 2, y: T + ph + 36,
                                     'text-anchor': 'middle'}, 'frame'));
      chart.appendChild(xAxis);

      columns = [];
      for (let s = 0; s < n; ++s) {
        const g = svg('g', {class: 'vk-snap', 'data-index': String(s), 'data-frame': String(frames[s]),
                            tabindex: '0'});
        g.appendChild(svg('rect', {class: 'vk-col-bg', x: cols[s].left, y: T,
                                   width: Math.max(0.5, cols[s].right - cols[s].left), height: ph}));
        const barW = barWidth(s);
        let base = 0;
        for (const x of list) {
          const v = x.values[s];
          if (v <= 0) continue;
          const r = svg('rect', {class: 'vk-stack', 'data-key': x.key, 'data-value': String(v),
                                 x: centreOf(s) - barW / 2, y: y(base + v), width: barW,
                                 height: Math.max(0.5, y(base) - y(base + v)), fill: x.color});
          r.appendChild(svg('title', {}, x.label + ': ' + formatMetric(state.metric, v)));
          g.appendChild(r);
          base += v;
        }
        g.addEventListener('pointerenter', () => showTip(s, list));
        g.addEventListener('focus', () => {
          showTip(s, list);
          const biggest = list.filter((x) => x.values[s] > 0).sort((a, b) => b.values[s] - a.values[s])[0];
          if (biggest) showStack(biggest.key, s);
        });
        g.addEventListener('pointerover', (e) => {
          const r = e.target.closest('rect.vk-stack');
          if (r) showStack(r.dataset.key, s);
        });
        columns.push(g);
        chart.appendChild(g);
      }
      chart.addEventListener('pointerdown', (e) => startBrush(e, chart));
      plot.textContent = '';
      plot.appendChild(chart);

      legend.textContent = '';
      for (const x of list) {
        const item = el('span', {class: 'vk-legend-entry', 'data-key': x.key});
        if (x.title) item.title = x.title;
        const sw = el('span', {class: 'vk-swatch'});
        sw.style.background = x.color;
        item.appendChild(sw);
        item.appendChild(document.createTextNode(x.label));
        legend.appendChild(item);
      }
      markRange();
    }

    // The creation stack of what a stacked rect holds (as memory_viz shows on hover): its call
    // site's (in types mode: the type's biggest call site at that snapshot), innermost frame
    // first; a call site whose stacks differ in lines shows the one holding most there.
    const stackBox = el('div', {id: 'timeline-stack', class: 'vk-stack-tip', 'aria-live': 'polite'});
    tip.parentNode.insertBefore(stackBox, tip.nextSibling);

    function showStack(key, s) {
      stackBox.textContent = '';
      stackBox.removeAttribute('data-site');
      const metric = state.metric;
      const perGroup = new Map();
      const typeIndex = state.mode === 'types' ? data.types.indexOf(key) : -1;
      const site = state.mode === 'groups' && key !== 'other' ? Number(key) : -1;
      for (const c of data.cells) {
        if (c.first > s || s > c.last || c.site < 0) continue;
        const g = data.groups[c.group];
        if (site >= 0 ? c.site !== site : g.typeIndex !== typeIndex) continue;
        perGroup.set(c.group, (perGroup.get(c.group) || 0) + (metric === 'bytes' ? c.bytes : c.count));
      }
      // Per call site, then its biggest group (ties: the lower index).
      const perSite = new Map();
      for (const [g, v] of perGroup) {
        const k = data.groups[g].site;
        perSite.set(k, (perSite.get(k) || 0) + v);
      }
      const best = (m) => Array.from(m.entries()).sort((a, b) => b[1] - a[1] || a[0] - b[0])[0];
      const top = best(perSite);
      if (!top) {
        stackBox.appendChild(el('p', {class: 'vk-note'}, key === 'other'
            ? 'Several call sites: pick "by call site" to see each one\'s stack.' : ''));
        return;
      }
      const k = top[0];
      const inSite = new Map(Array.from(perGroup.entries()).filter(([g]) => data.groups[g].site === k));
      const group = data.groups[best(inSite)[0]];
      const siteInfo = data.sites[k];
      stackBox.setAttribute('data-site', String(k));
      let head = siteInfo.label + ': ' + formatMetric(metric, top[1]) + (metric === 'bytes' ? '' : ' objects') +
                 ' at snapshot ' + data.snapshots[s].sequence;
      if (state.mode === 'types' && perSite.size > 1) head += ' (the biggest of ' + perSite.size + ' call sites)';
      stackBox.appendChild(el('div', {class: 'vk-stack-head'}, head));
      const ol = el('ol', {class: 'vk-frames'});
      if (!group.stack.length) ol.appendChild(el('li', {}, '(unknown call site)'));
      for (let i = group.stack.length - 1; i >= 0; --i) {
        const fr = data.frames[group.stack[i]] || [-1, -1, 0, 0];
        const fn = data.str(fr[0]) || '(unknown)';
        let text = fn;
        const file = data.str(fr[1]);
        if (file) text += ' (' + file + (fr[2] ? ':' + fr[2] : '') + ')';
        if (fr[3]) text += ' (inlined)';
        ol.appendChild(el('li', {'data-function': fn}, text));
      }
      stackBox.appendChild(ol);
      if (siteInfo.groups.length > 1) {
        stackBox.appendChild(el('p', {class: 'vk-note'}, 'This call site also creates from ' +
            (siteInfo.groups.length - 1) + ' other line' + (siteInfo.groups.length > 2 ? 's' : '') +
            ' of the same functions.'));
      }
    }

    function showTip(s, list) {
      tip.textContent = snapshotText(data.snapshots[s]);
      let total = 0;
      for (const x of list) total += x.values[s];
      tip.setAttribute('data-index', String(s));
      const biggest = list.filter((x) => x.values[s] > 0).sort((a, b) => b.values[s] - a.values[s])[0];
      let values = ' \u2014 ' + formatMetric(state.metric, total) +
                   (state.metric === 'bytes' ? ' live' : ' live objects');
      if (biggest) values += ', most in ' + biggest.label + ' (' + formatMetric(state.metric, biggest.values[s]) + ')';
      tip.appendChild(el('span', {class: 'vk-tip-values'}, values));
    }

    // Pointer drag across columns: the column under the pointer from its x.
    function columnAt(e, chart) {
      const box = chart.getBoundingClientRect();
      const x = (e.clientX - box.left) * (W / box.width);
      let s = 0;
      while (s + 1 < n && x >= cols[s + 1].left) ++s;
      return s;
    }

    function startBrush(e, chart) {
      if (e.button !== 0) return;
      e.preventDefault();
      const anchor = columnAt(e, chart);
      setRange(anchor, anchor);
      const move = (m) => {
        const at = columnAt(m, chart);
        setRange(Math.min(anchor, at), Math.max(anchor, at));
      };
      const up = () => {
        window.removeEventListener('pointermove', move);
        window.removeEventListener('pointerup', up);
      };
      window.addEventListener('pointermove', move);
      window.addEventListener('pointerup', up);
    }

    function setRange(from, to) {
      state.from = Math.max(0, Math.min(n - 1, from));
      state.to = Math.max(state.from, Math.min(n - 1, to));
      fromInput.value = String(state.from);
      toInput.value = String(state.to);
      markRange();
      selection();
    }

    function markRange() {
      const partial = state.from > 0 || state.to < n - 1;  // the whole run needs no highlight
      columns.forEach((g, s) => g.classList.toggle('vk-in-range', partial && s >= state.from && s <= state.to));
    }

    // Created in [from, to] and still alive at the last snapshot, per call site.
    function selection() {
      const table = $('#timeline-selection');
      // Flat per-site sums (no per-cell map lookups: most of 250,000 cells may qualify).
      const S = data.sites.length;
      const sum = new Float64Array(S * 2);
      const seen = new Uint8Array(S);
      for (const c of data.cells) {
        if (c.first < state.from || c.first > state.to || c.last !== n - 1 || c.site < 0) continue;
        sum[c.site * 2] += c.count;
        sum[c.site * 2 + 1] += c.bytes;
        seen[c.site] = 1;
      }
      const per = new Map();
      for (let k = 0; k < S; ++k) {
        if (seen[k]) per.set(k, {count: sum[k * 2], bytes: sum[k * 2 + 1]});
      }
      const rows = Array.from(per.entries()).sort((a, b) => b[1].bytes - a[1].bytes ||
                                                            b[1].count - a[1].count || a[0] - b[0]);
      const body = $('tbody', table);
      const foot = $('tfoot', table);
      body.textContent = '';
      foot.textContent = '';
      let count = 0, bytes = 0;
      for (const [k, t] of rows) {
        const site = data.sites[k];
        const tr = el('tr', {'data-site': String(k), 'data-path': site.pathText});
        tr.appendChild(el('td', {}, site.type));
        tr.appendChild(el('td', {title: site.pathText}, site.short || '(unknown)'));
        tr.appendChild(el('td', {}, site.name));
        tr.appendChild(el('td', {class: 'vk-num vk-count', 'data-value': String(t.count)},
                          formatCount(t.count)));
        tr.appendChild(bytesCell({class: 'vk-num vk-bytes', 'data-value': String(t.bytes)}, t.bytes,
                                 !!site.attached));
        body.appendChild(tr);
        count += t.count;
        bytes += t.bytes;
      }
      const total = el('tr', {class: 'vk-total'});
      total.appendChild(el('td', {colspan: '3'}, rows.length + (rows.length === 1 ? ' call site' : ' call sites') +
                           ', snapshots ' + state.from + ' to ' + state.to));
      total.appendChild(el('td', {class: 'vk-num vk-count', 'data-value': String(count)}, formatCount(count)));
      total.appendChild(el('td', {class: 'vk-num vk-bytes', 'data-value': String(bytes)}, formatBytes(bytes)));
      foot.appendChild(total);
    }

    $$('button[data-timeline-mode]', root).forEach((b) => b.addEventListener('click', () => {
      state.mode = b.dataset.timelineMode;
      $$('button[data-timeline-mode]', root).forEach((o) => o.setAttribute('aria-pressed', String(o === b)));
      draw();
    }));
    $$('button[data-metric]', root).forEach((b) => b.addEventListener('click', () => {
      state.metric = b.dataset.metric;
      $$('button[data-metric]', root).forEach((o) => o.setAttribute('aria-pressed', String(o === b)));
      draw();
    }));
    const fromInputs = () => {
      const a = parseInt(fromInput.value, 10), b = parseInt(toInput.value, 10);
      if (Number.isNaN(a) || Number.isNaN(b)) return;
      setRange(Math.min(a, b), Math.max(a, b));
    };
    fromInput.addEventListener('change', fromInputs);
    toInput.addEventListener('change', fromInputs);
    draw();
    setRange(0, n - 1);
  }

  // ---------------------------------------------------------------------------------------------
  // Flame graph (icicle): live objects by creation stack, outermost frame on top
  // ---------------------------------------------------------------------------------------------

  function buildFlamegraph(data) {
    const root = $('#flame-explorer');
    if (!root) return;
    root.hidden = false;
    const n = data.snapshots.length;
    const snapSel = $('#flame-snapshot');
    const baseSel = $('#flame-base');
    const metricSel = $('#flame-metric');
    const search = $('#flame-search');
    const result = $('#flame-search-result');
    const crumbs = $('#flame-crumbs');
    const graph = $('#flame-graph');
    const hover = $('#flame-hover');
    snapshotOptions(snapSel, data, n - 1);
    // What leaked at exit (outlived its device or the process), by stack: the leak_at_exit
    // findings' own counts and bytes, at their groups. Teardown snapshots are no lifetimes.
    const leaks = data.findings.filter((f) => f.kind === 'leak_at_exit' && f.group >= 0 &&
                                              f.group < data.groups.length);
    if (leaks.length) {
      const count = leaks.reduce((sum, f) => sum + (f.count || 0), 0);
      snapSel.appendChild(el('option', {value: 'exit'}, 'leaked at exit (' + formatCount(count) +
                                                         (count === 1 ? ' object)' : ' objects)')));
    }
    const chosen = (sel) => (sel.value === 'exit' ? 'exit' : sel.value === '' ? null : parseInt(sel.value, 10));
    for (let i = 0; i < n; ++i) {
      const snap = data.snapshots[i];
      baseSel.appendChild(el('option', {value: String(i)},
                             '#' + i + ' \u00b7 frame ' + snap.frame + (snap.label ? ' \u00b7 ' + snap.label : '')));
    }
    let tree = null;
    let zoom = null;

    function frameInfo(f) {
      const fr = data.frames[f] || [-1, -1, 0, 0];
      return {file: data.str(fr[1]), line: fr[2], inlined: !!fr[3]};
    }

    // Per group: its value at snapshot s (metric); the tree sums them along the stacks.
    function groupValues(s, metric) {
      const v = new Float64Array(data.groups.length);
      if (s === null) return v;
      if (s === 'exit') {
        for (const f of leaks) v[f.group] += (metric === 'bytes' ? f.bytes : f.count) || 0;
        return v;
      }
      for (const c of data.cells) {
        if (c.first <= s && s <= c.last) v[c.group] += metric === 'bytes' ? c.bytes : c.count;
      }
      return v;
    }

    function build() {
      const s = chosen(snapSel);
      const b = chosen(baseSel);
      const metric = metricSel.value;
      const now = groupValues(s, metric);
      const then = groupValues(b, metric);
      const top = {fn: 'all', path: '', file: '', line: 0, inlined: false, value: 0, base: 0,
                   children: new Map(), parent: null, depth: 0};
      // One node per call-site path prefix (data.paths): the frames of a function at several
      // lines (a caller of an inlined helper at two places) are one box.
      data.groups.forEach((g, i) => {
        if (now[i] === 0 && then[i] === 0) return;
        let node = top;
        node.value += now[i];
        node.base += then[i];
        const path = g.path.length ? g.path : ['(unknown call site)'];
        path.forEach((fn, k) => {
          let child = node.children.get(fn);
          const info = k < g.stack.length ? frameInfo(g.stack[k]) : {file: '', line: 0, inlined: false};
          if (!child) {
            child = Object.assign(info, {fn: fn, path: (node.path ? node.path + PATH_SEP : '') + fn,
                                         value: 0, base: 0, children: new Map(), parent: node,
                                         depth: node.depth + 1});
            node.children.set(fn, child);
          } else {
            // Lines that differ are not shown; a file or inlining that differs neither.
            if (child.line !== info.line) child.line = 0;
            if (child.file !== info.file) child.file = '';
            child.inlined = child.inlined && info.inlined;
          }
          child.value += now[i];
          child.base += then[i];
          node = child;
        });
      });
      tree = {root: top, diff: b !== null, metric: metric};
      zoom = top;
      draw();
    }

    const width = (node) => (tree.diff ? Math.max(node.value, node.base) : node.value);

    function draw() {
      graph.textContent = '';
      const rowH = 22;
      let maxDepth = 0;
      const path = [];
      for (let p = zoom; p; p = p.parent) path.unshift(p);
      let maxDelta = 1;
      const walk = (node) => {
        maxDelta = Math.max(maxDelta, Math.abs(node.value - node.base));
        node.children.forEach(walk);
      };
      if (tree.diff) walk(tree.root);
      const place = (node, left, span) => {
        if (span < 0.0015 && node !== zoom) return;  // narrower than a pixel or so
        const d = el('div', {class: 'vk-flame-node', 'data-function': node.fn, 'data-path': node.path,
                             'data-value': String(node.value), 'data-depth': String(node.depth),
                             tabindex: '0'});
        d.textContent = node.fn;
        d.style.left = (left * 100).toFixed(4) + '%';
        d.style.width = (span * 100).toFixed(4) + '%';
        d.style.top = (node.depth * rowH) + 'px';
        if (node.inlined) d.classList.add('vk-inlined');
        if (tree.diff) {
          const delta = node.value - node.base;
          d.setAttribute('data-delta', String(delta));
          d.classList.add(delta > 0 ? 'vk-grow' : delta < 0 ? 'vk-shrink' : 'vk-same');
          d.style.setProperty('--l', (88 - 30 * Math.abs(delta) / maxDelta).toFixed(1) + '%');
        } else {
          let h = 0;
          for (const ch of node.fn) h = (h * 31 + ch.charCodeAt(0)) % 360;
          d.style.setProperty('--h', String(10 + (h % 45)));
          d.style.setProperty('--l', String(66 + (h % 14)) + '%');
        }
        d._node = node;
        graph.appendChild(d);
        maxDepth = Math.max(maxDepth, node.depth);
        const total = width(node);
        let x = left;
        const kids = Array.from(node.children.values()).sort((a, b) => width(b) - width(a));
        for (const k of kids) {
          const w = total > 0 ? (width(k) / total) * span : 0;
          place(k, x, w);
          x += w;
        }
      };
      // The zoomed node's ancestors full width above it, then its subtree.
      for (const p of path.slice(0, -1)) {
        const d = el('div', {class: 'vk-flame-node vk-ancestor', 'data-function': p.fn,
                             'data-path': p.path, 'data-value': String(p.value),
                             'data-depth': String(p.depth), tabindex: '0'}, p.fn);
        d.style.left = '0%';
        d.style.width = '100%';
        d.style.top = (p.depth * rowH) + 'px';
        d.style.setProperty('--l', '86%');
        d._node = p;
        graph.appendChild(d);
      }
      place(zoom, 0, 1);
      graph.style.height = ((maxDepth + 1) * rowH + 4) + 'px';
      crumbs.textContent = '';
      path.forEach((p, i) => {
        if (i > 0) crumbs.appendChild(document.createTextNode(' \u203a '));
        const c = el('button', {type: 'button', 'data-depth': String(i)}, p.fn);
        c.addEventListener('click', () => { zoom = p; draw(); });
        crumbs.appendChild(c);
      });
      applySearch();
    }

    function describe(node) {
      let t = node.path || node.fn;
      if (node.file) t += ' (' + node.file + (node.line ? ':' + node.line : '') + ')';
      if (node.inlined) t += ' [inlined]';
      t += ' \u2014 ' + formatMetric(tree.metric, node.value);
      if (tree.diff) {
        const delta = node.value - node.base;
        t += ' (' + (delta >= 0 ? '+' : '-') + formatMetric(tree.metric, Math.abs(delta)) + ' since base)';
      }
      return t;
    }

    // n: the frames drawn that match; x: what the outermost matches hold, each object once.
    function applySearch() {
      const q = search.value.trim().toLowerCase();
      let count = 0;
      $$('.vk-flame-node', graph).forEach((d) => {
        const m = q !== '' && matches(d._node, q);
        d.classList.toggle('vk-match', m);
        if (m) ++count;
      });
      if (q === '') {
        result.textContent = '';
        return;
      }
      let covered = 0;
      const walk = (node, inside) => {
        const m = matches(node, q);
        if (m && !inside) covered += node.value;
        node.children.forEach((k) => walk(k, inside || m));
      };
      walk(tree.root, false);
      result.setAttribute('data-matches', String(count));
      result.setAttribute('data-value', String(covered));
      result.setAttribute('data-total', String(tree.root.value));
      result.textContent = count + ' matches, ' +
          formatMetric(tree.metric, covered) + ' of ' + formatMetric(tree.metric, tree.root.value);
    }

    // A query with " > " is a call-site path: it matches the frames whose path ends with it (the
    // whole path: that one frame). Otherwise, a part of a function's name.
    function matches(node, q) {
      if (!q.includes(PATH_SEP)) return node.fn.toLowerCase().includes(q);
      const path = node.path.toLowerCase();
      return node !== tree.root && (path === q || path.endsWith(PATH_SEP + q));
    }

    graph.addEventListener('click', (e) => {
      const d = e.target.closest('.vk-flame-node');
      if (!d || !d._node) return;
      zoom = d._node;
      draw();
    });
    graph.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && e.target._node) {
        zoom = e.target._node;
        draw();
      }
    });
    graph.addEventListener('pointerover', (e) => {
      const d = e.target.closest('.vk-flame-node');
      if (d && d._node) hover.textContent = describe(d._node);
    });
    for (const c of [snapSel, baseSel, metricSel]) c.addEventListener('change', build);
    search.addEventListener('input', applySearch);
    // A finding's report links to its call site here (data.findings: rank -> lifetimes group):
    // its whole path is searched, which lights that one frame.
    for (const f of data.findings) {
      const g = f.group >= 0 ? data.groups[f.group] : null;
      const details = document.getElementById('finding-' + f.rank);
      if (!g || !g.path.length || !details || details.tagName !== 'DETAILS') continue;
      const site = data.sites[g.site];
      const name = site.short.length > 80 ? '\u2026' + site.short.slice(-79) : site.short;
      const b = el('button', {type: 'button', class: 'vk-to-flame', 'data-group': String(f.group),
                              'data-path': site.pathText, title: site.pathText},
                   'Show ' + name + ' in the flame graph');
      b.addEventListener('click', () => {
        // Its objects may hold no bytes: then count them, or the frame is not drawn.
        const s = chosen(snapSel);
        if (metricSel.value === 'bytes' && groupValues(s, 'bytes')[f.group] === 0) {
          metricSel.value = 'count';
          build();
        }
        search.value = site.pathText;
        applySearch();
        // Not drawn (zoomed into another frame, or too narrow): zoom to its caller's frame.
        if (!$('.vk-flame-node.vk-match', graph)) {
          let node = tree.root;
          for (const fn of g.path) node = node && node.children.get(fn);
          if (node) {
            zoom = node.parent || node;
            draw();
            // Still narrower than a pixel beside its siblings: zoom to it.
            if (!$('.vk-flame-node.vk-match', graph)) {
              zoom = node;
              draw();
            }
          }
        }
        location.hash = '#flamegraph';
      });
      details.appendChild(b);
    }
    // Objects that hold no bytes (descriptor sets, views) would draw an empty graph: count them.
    if (groupValues(n - 1, 'bytes').every((v) => v === 0)) metricSel.value = 'count';
    build();
  }

  // ---------------------------------------------------------------------------------------------
  // Findings: sort, filter, a row opens its report
  // ---------------------------------------------------------------------------------------------

  function buildFindings() {
    const table = $('#findings-table');
    if (!table) return;
    const tools = $('#findings-tools');
    if (tools) tools.hidden = false;
    const body = $('tbody', table);
    const original = Array.from(body.rows);
    const units = $$('tr.vk-finding', body).map((row) => {
      const details = row.nextElementSibling && row.nextElementSibling.classList.contains('vk-finding-details')
                          ? row.nextElementSibling : null;
      return {row: row, details: details};
    });
    const kind = $('#findings-kind');
    const text = $('#findings-text');
    const shown = $('#findings-shown');
    let sortKey = null, ascending = false;

    function visible(u) {
      const k = kind ? kind.value : '';
      const q = text ? text.value.trim().toLowerCase() : '';
      if (k && u.row.dataset.kind !== k) return false;
      if (!q) return true;
      return ['type', 'name', 'function'].some((a) => (u.row.dataset[a] || '').toLowerCase().includes(q));
    }

    function apply() {
      let count = 0;
      for (const u of units) {
        const v = visible(u);
        u.row.hidden = !v;
        if (u.details) u.details.hidden = !v;
        if (v) ++count;
      }
      // A problem's heading row shows while one of its findings does, in the ranked order.
      for (const p of $$('tr.vk-problem', body)) {
        let any = false;
        for (let r = p.nextElementSibling; r && !r.classList.contains('vk-problem') &&
             (r.classList.contains('vk-in-problem') || r.classList.contains('vk-finding-details'));
             r = r.nextElementSibling) {
          if (r.classList.contains('vk-finding') && !r.hidden) any = true;
        }
        p.hidden = sortKey !== null || !any;
      }
      if (shown) shown.textContent = count + ' of ' + units.length + ' findings';
    }

    function sort(key) {
      if (sortKey === key) {
        ascending = !ascending;
      } else {
        sortKey = key;
        ascending = key !== 'bytes' && key !== 'count';
      }
      $$('th[data-sort]', table).forEach((th) => {
        if (th.dataset.sort === key) th.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        else th.removeAttribute('aria-sort');
      });
      const numeric = key === 'bytes' || key === 'count';
      const value = (u) => (numeric ? BigInt(u.row.dataset[key] || '0') : (u.row.dataset[key] || '').toLowerCase());
      const sorted = units.slice().sort((a, b) => {
        const x = value(a), y = value(b);
        const c = x < y ? -1 : x > y ? 1 : 0;
        return (ascending ? c : -c) || Number(a.row.dataset.rank) - Number(b.row.dataset.rank);
      });
      for (const r of original) if (r.classList.contains('vk-problem')) body.appendChild(r);
      for (const u of sorted) {
        body.appendChild(u.row);
        if (u.details) body.appendChild(u.details);
      }
      apply();
    }

    function open(u, toggle) {
      const d = u.details && $('details', u.details);
      if (!d) return;
      d.open = toggle ? !d.open : true;
      u.row.classList.toggle('vk-open', d.open);
    }

    $$('th[data-sort]', table).forEach((th) => {
      th.tabIndex = 0;
      th.addEventListener('click', () => sort(th.dataset.sort));
      th.addEventListener('keydown', (e) => { if (e.key === 'Enter') sort(th.dataset.sort); });
    });
    for (const u of units) {
      u.row.addEventListener('click', (e) => {
        if (e.target.closest('a')) return;
        open(u, true);
      });
      u.row.addEventListener('keydown', (e) => { if (e.key === 'Enter') open(u, true); });
      const d = u.details && $('details', u.details);
      if (d) d.addEventListener('toggle', () => u.row.classList.toggle('vk-open', d.open));
    }
    if (kind) kind.addEventListener('change', apply);
    if (text) text.addEventListener('input', apply);
    apply();
  }

  // A fragment naming a finding's report opens it.
  function openFragmentFinding() {
    const m = /^#finding-(\d+)$/.exec(location.hash);
    if (!m) return;
    const d = document.getElementById('finding-' + m[1]);
    if (d && d.tagName === 'DETAILS') {
      d.open = true;
      d.scrollIntoView({block: 'center'});
    }
  }

  // ---------------------------------------------------------------------------------------------
  // Retainers: the server wrote every finding's roots; the script shows one finding at a time
  // ---------------------------------------------------------------------------------------------

  function buildRetainers() {
    const select = $('#retainers-finding');
    if (!select) return;
    const tools = $('#retainers-tools');
    if (tools) tools.hidden = false;
    const apply = () => {
      $$('.vk-retainers-finding').forEach((f) => {
        f.hidden = select.value !== '' && f.dataset.rank !== select.value;
      });
    };
    // Default: the first finding with roots (the first option after "all").
    if (select.options.length > 1) select.selectedIndex = 1;
    select.addEventListener('change', apply);
    apply();
  }

  // ---------------------------------------------------------------------------------------------
  // Diff: two snapshots, new / freed / kept by type and by call site
  // ---------------------------------------------------------------------------------------------

  function buildDiff(data) {
    const root = $('#diff-explorer');
    if (!root) return;
    root.hidden = false;
    const n = data.snapshots.length;
    const selA = $('#diff-a');
    const selB = $('#diff-b');
    snapshotOptions(selA, data, 0);
    snapshotOptions(selB, data, n - 1);
    const hide = $('#diff-hide-unchanged');
    const COLS = ['new-count', 'new-bytes', 'freed-count', 'freed-bytes', 'kept-count', 'kept-bytes'];
    const open = new Set();  // the call sites whose objects are listed
    const openTypes = new Set();  // the types whose call sites are listed
    const changed = (t) => t['new-count'] + t['freed-count'] > 0;
    const hiding = () => !hide || hide.checked;

    // A call site's objects at a and b, by lifetime (first and last snapshot alive): one row
    // each, its count and bytes in the column new, freed or kept.
    function objectRows(k, a, b) {
      const by = new Map();
      for (const c of data.cells) {
        if (c.site !== k) continue;
        const atA = c.first <= a && a <= c.last, atB = c.first <= b && b <= c.last;
        if (!atA && !atB) continue;
        const key = c.first + ':' + c.last;
        let o = by.get(key);
        if (!o) {
          o = Object.assign(zero(), {first: c.first, last: c.last});
          by.set(key, o);
        }
        const w = atA && atB ? 'kept' : atB ? 'new' : 'freed';
        o[w + '-count'] += c.count;
        o[w + '-bytes'] += c.bytes;
      }
      const at = (i) => '#' + i + ' (frame ' + data.snapshots[i].frame + ')';
      return Array.from(by.values()).sort((x, y) => x.first - y.first || x.last - y.last).map((o) => {
        const count = o['new-count'] + o['freed-count'] + o['kept-count'];
        let label = formatCount(count) + (count === 1 ? ' object' : ' objects') + ', first seen ' +
                    at(o.first) + ', ';
        label += o.last >= n - 1 ? 'alive at the last snapshot' : 'last seen ' + at(o.last);
        o.attached = data.sites[k].attached;
        const tr = row({class: 'vk-diff-objects', 'data-of-site': String(k), 'data-first': String(o.first),
                        'data-last': String(o.last)}, label, o);
        return tr;
      });
    }

    function zero() {
      return {'new-count': 0, 'new-bytes': 0, 'freed-count': 0, 'freed-bytes': 0, 'kept-count': 0,
              'kept-bytes': 0};
    }

    function header(table, first) {
      const head = el('thead');
      const tr = el('tr');
      tr.appendChild(el('th', {}, first));
      for (const c of ['new', 'new bytes', 'freed', 'freed bytes', 'kept', 'kept bytes']) {
        tr.appendChild(el('th', {class: 'vk-num'}, c));
      }
      head.appendChild(tr);
      table.appendChild(head);
    }

    function row(attrs, label, t) {
      const tr = el('tr', attrs);
      tr.appendChild(el('td', {}, label));
      for (const c of COLS) {
        const v = t[c];
        const cls = {class: 'vk-num' + (v === 0 ? ' vk-zero' : ''), 'data-col': c, 'data-value': String(v)};
        tr.appendChild(c.endsWith('bytes') ? bytesCell(cls, v, t.attached) : el('td', cls, formatCount(v)));
      }
      return tr;
    }

    function draw() {
      const a = parseInt(selA.value, 10), b = parseInt(selB.value, 10);
      // One pass over the cells into flat arrays (6 columns in COLS' order, per group and per
      // type): no per-cell objects or map lookups, which dominated at 250,000 cells.
      const G = data.sites.length, T = data.types.length + 1;  // the last type: unknown
      const gv = new Float64Array(G * 6), tv = new Float64Array(T * 6);
      const gSeen = new Uint8Array(G), tSeen = new Uint8Array(T), tAttached = new Uint8Array(T);
      const typeOf = data.sites.map((g) => (g.typeIndex >= 0 && g.typeIndex < T - 1 ? g.typeIndex : T - 1));
      for (const c of data.cells) {
        const atA = c.first <= a && a <= c.last, atB = c.first <= b && b <= c.last;
        const w = atA && atB ? 4 : atB ? 0 : atA ? 2 : -1;  // kept, new, freed
        if (w < 0 || c.site < 0) continue;
        const t = typeOf[c.site];
        gv[c.site * 6 + w] += c.count;
        gv[c.site * 6 + w + 1] += c.bytes;
        tv[t * 6 + w] += c.count;
        tv[t * 6 + w + 1] += c.bytes;
        gSeen[c.site] = 1;
        tSeen[t] = 1;
        if (data.sites[c.site].attached) tAttached[t] = 1;
      }
      const sums = (arr, k) => {
        const o = zero();
        COLS.forEach((col, i) => { o[col] = arr[k * 6 + i]; });
        return o;
      };
      const byType = new Map(), byGroup = new Map();
      const total = zero();
      for (let t = 0; t < T; ++t) {
        if (!tSeen[t]) continue;
        const o = sums(tv, t);
        if (tAttached[t]) o.attached = true;
        byType.set(t < T - 1 ? data.types[t] : '?', o);
        for (const col of COLS) total[col] += o[col];
      }
      for (let g = 0; g < G; ++g) {
        if (!gSeen[g]) continue;
        const o = sums(gv, g);
        if (data.sites[g].attached) o.attached = true;
        byGroup.set(g, o);
      }
      const net = (t) => t['new-bytes'] - t['freed-bytes'];
      const types = $('#diff-types');
      types.textContent = '';
      header(types, 'Type');
      const tb = el('tbody');
      Array.from(byType.entries()).sort((x, y) => net(y[1]) - net(x[1]) || (x[0] < y[0] ? -1 : 1))
          .filter(([, t]) => !hiding() || changed(t))
          .forEach(([type, t]) => {
            const tr = row({'data-type': type}, type, t);
            if (!changed(t)) tr.classList.add('vk-unchanged');
            tb.appendChild(tr);
            // A button opens the type's call sites under its row (they add up to it).
            const isOpen = openTypes.has(type);
            const button = el('button', {type: 'button', class: 'vk-expand', 'aria-expanded': String(isOpen),
                                         'aria-label': 'call sites of this type'}, isOpen ? '\u25be' : '\u25b8');
            tr.firstChild.insertBefore(button, tr.firstChild.firstChild);
            button.addEventListener('click', (e) => {
              e.stopPropagation();
              if (openTypes.has(type)) openTypes.delete(type); else openTypes.add(type);
              draw();
            });
            if (!isOpen) return;
            Array.from(byGroup.entries())
                .filter(([k, v]) => (typeOf[k] < T - 1 ? data.types[typeOf[k]] : '?') === type &&
                                    (!hiding() || changed(v)))
                .sort((x, y) => net(y[1]) - net(x[1]) || x[0] - y[0])
                .forEach(([k, v]) => {
                  const sub = row({class: 'vk-diff-sites', 'data-of-type': type, 'data-site-index': String(k)},
                                  data.sites[k].label, v);
                  sub.firstChild.title = data.sites[k].pathText;
                  tb.appendChild(sub);
                });
          });
      types.appendChild(tb);
      const groups = $('#diff-groups');
      groups.textContent = '';
      header(groups, 'Call site');
      const gb = el('tbody');
      Array.from(byGroup.entries())
          .filter(([, t]) => !hiding() || changed(t))
          .sort((x, y) => net(y[1]) - net(x[1]) || x[0] - y[0])
          .forEach(([k, t]) => {
            const tr = row({'data-site': String(k), 'data-path': data.sites[k].pathText}, data.sites[k].label, t);
            if (!changed(t)) tr.classList.add('vk-unchanged');
            const first = tr.firstChild;
            first.title = data.sites[k].pathText;
            // A button opens the call site's objects, by lifetime, under its row.
            const button = el('button', {type: 'button', class: 'vk-expand',
                                         'aria-expanded': String(open.has(k)),
                                         'aria-label': 'objects of this call site'},
                              open.has(k) ? '\u25be' : '\u25b8');
            first.insertBefore(button, first.firstChild);
            gb.appendChild(tr);
            const rows = open.has(k) ? objectRows(k, a, b) : [];
            for (const r of rows) gb.appendChild(r);
            button.addEventListener('click', (e) => {
              e.stopPropagation();
              if (open.has(k)) open.delete(k); else open.add(k);
              draw();
            });
          });
      groups.appendChild(gb);
      $('#diff-summary').textContent =
          '+' + formatCount(total['new-count']) + ' new (' + formatBytes(total['new-bytes']) + '), \u2212' +
          formatCount(total['freed-count']) + ' freed (' + formatBytes(total['freed-bytes']) + '), ' +
          formatCount(total['kept-count']) + ' kept (' + formatBytes(total['kept-bytes']) + ')';
    }

    selA.addEventListener('change', draw);
    selB.addEventListener('change', draw);
    if (hide) hide.addEventListener('change', draw);
    draw();
  }

  // ---------------------------------------------------------------------------------------------
  // Navigation: fragments open views; the link of the view in sight is marked
  // ---------------------------------------------------------------------------------------------

  function buildNav() {
    const links = $$('#vk-nav a');
    const mark = (id) => links.forEach((a) => a.classList.toggle('vk-active', a.getAttribute('href') === '#' + id));
    const fromHash = () => {
      const id = location.hash.slice(1);
      if (VIEWS.includes(id)) {
        mark(id);
        const v = document.getElementById(id);
        if (v) v.scrollIntoView({block: 'start'});
      } else if (/^finding-\d+$/.test(id)) {
        mark('findings');
        openFragmentFinding();
      }
    };
    // The current view is the one the fragment names (a nav click sets it).
    window.addEventListener('hashchange', fromHash);
    fromHash();
  }

  // Over the lifetime cap, cells were dropped (data.omitted): each view that draws the
  // lifetimes says what it leaves out.
  function noteOmitted(data) {
    const o = data.omitted || {};
    if (!(o.cells > 0)) return;
    const text = 'This view leaves out ' + formatCount(o.objects || 0) +
                 ((o.objects || 0) === 1 ? ' object (' : ' objects (') + formatBytes(o.bytes || 0) +
                 ') in ' + formatCount(o.cells) + (o.cells === 1 ? ' lifetime cell' : ' lifetime cells') +
                 ', over the cap of vkleak report --max-lifetime-cells (objects alive at the end are ' +
                 'kept first, then the biggest); the findings count every object.';
    for (const [id, view] of [['timeline-omitted', '#timeline-explorer'], ['flame-omitted', '#flame-explorer'],
                              ['diff-omitted', '#diff-explorer']]) {
      const root = $(view);
      if (!root) continue;
      const p = el('p', {id: id, class: 'vk-note vk-omitted', 'data-cells': String(o.cells),
                         'data-objects': String(o.objects || 0), 'data-bytes': String(o.bytes || 0)}, text);
      root.insertBefore(p, root.firstChild);
    }
  }

  function init() {
    let data = null;
    let failure = null;
    // Each step is a performance measure "vkleak:<step>" (bench/RESULTS.md reads them).
    const guard = (f, step) => {
      const t0 = performance.now();
      try {
        f();
      } catch (e) {
        failure = failure || e;
      }
      if (performance.measure) performance.measure('vkleak:' + step, {start: t0, end: performance.now()});
    };
    guard(() => { data = loadData(); }, 'data');
    if (data) {
      for (const id of ['flamegraph-noscript', 'diff-noscript']) {
        const note = document.getElementById(id);
        if (note) note.hidden = true;
      }
      guard(() => noteOmitted(data), 'omitted');
      guard(() => buildTimeline(data), 'timeline');
      guard(() => buildFlamegraph(data), 'flamegraph');
      guard(() => buildDiff(data), 'diff');
    } else {
      for (const id of ['flamegraph-noscript', 'diff-noscript']) {
        const note = document.getElementById(id);
        if (note) note.textContent = 'This report holds no lifetimes of objects to draw.';
      }
    }
    guard(buildFindings, 'findings');
    guard(buildRetainers, 'retainers');
    guard(buildNav, 'nav');
    if (performance.mark) performance.mark('vkleak:ready');
    document.documentElement.dataset.explorer = failure ? 'failed' : 'ready';
    if (failure) throw failure;
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init();
  }
})();
