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

