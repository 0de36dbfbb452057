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

