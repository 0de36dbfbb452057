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

