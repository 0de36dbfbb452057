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

