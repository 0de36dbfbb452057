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
