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

