// The inventory table: drawn from /table/api/items, sorted, filtered, paged and edited here.
const S = {items: [], sort: 'sku', dir: 1, filter: '', category: '', page: 1, editing: null};
const PER = 8;
async function load() { S.items = await (await fetch('/table/api/items')).json(); draw(); }
function rows() {
  const q = S.filter.toLowerCase();
  const out = S.items.filter(i => (!q || (i.sku + ' ' + i.name).toLowerCase().includes(q))
    && (!S.category || i.category === S.category));
  out.sort((a, b) => { const x = a[S.sort], y = b[S.sort];
    const c = (typeof x === 'number') ? x - y : (S.sort === 'price' ? Number(x) - Number(y)
      : String(x).localeCompare(String(y)));
    return c * S.dir; });
  return out;
}
function esc(t) { const d = document.createElement('div'); d.textContent = String(t); return d.innerHTML; }
function draw() {
  const all = rows();
  const pages = Math.max(1, Math.ceil(all.length / PER));
  S.page = Math.min(S.page, pages);
  const shown = all.slice((S.page - 1) * PER, S.page * PER);
  const body = document.getElementById('rows');
  body.innerHTML = shown.map(i => S.editing === i.sku ?
    `<tr><td>${esc(i.sku)}</td><td>${esc(i.name)}</td><td>${esc(i.category)}</td><td>${esc(i.location)}</td>
     <td><input id="stock-edit" aria-label="Stock of ${esc(i.sku)}" value="${esc(i.stock)}"></td>
     <td><input id="price-edit" aria-label="Price of ${esc(i.sku)}" value="${esc(i.price)}"></td>
     <td><button type="button" data-save="${esc(i.sku)}">Save ${esc(i.sku)}</button>
     <button type="button" data-cancel="1">Cancel</button></td></tr>` :
    `<tr><td>${esc(i.sku)}</td><td>${esc(i.name)}</td><td>${esc(i.category)}</td><td>${esc(i.location)}</td>
     <td>${esc(i.stock)}</td><td>€${esc(i.price)}</td>
     <td><button type="button" data-edit="${esc(i.sku)}" aria-label="Edit ${esc(i.sku)}">Edit</button></td></tr>`).join('');
  document.getElementById('count').textContent = `${all.length} items match. Page ${S.page} of ${pages}.`;
  document.getElementById('prev').disabled = S.page <= 1;
  document.getElementById('next').disabled = S.page >= pages;
  document.querySelectorAll('th button').forEach(b => {
    const on = b.dataset.key === S.sort;
    b.closest('th').setAttribute('aria-sort', on ? (S.dir > 0 ? 'ascending' : 'descending') : 'none');
  });
}
document.addEventListener('DOMContentLoaded', () => {
  document.getElementById('filter').addEventListener('input', e => { S.filter = e.target.value; S.page = 1; draw(); });
  document.getElementById('category').addEventListener('change', e => { S.category = e.target.value; S.page = 1; draw(); });
  document.getElementById('prev').addEventListener('click', () => { S.page -= 1; draw(); });
  document.getElementById('next').addEventListener('click', () => { S.page += 1; draw(); });
  document.querySelectorAll('th button').forEach(b => b.addEventListener('click', () => {
    if (S.sort === b.dataset.key) S.dir = -S.dir; else { S.sort = b.dataset.key; S.dir = 1; }
    draw(); }));
  document.getElementById('rows').addEventListener('click', async e => {
    const t = e.target.closest('button'); if (!t) return;
    const msg = document.getElementById('msg');
    if (t.dataset.edit) { S.editing = t.dataset.edit; msg.textContent = ''; draw(); }
    else if (t.dataset.cancel) { S.editing = null; draw(); }
    else if (t.dataset.save) {
      const r = await fetch('/table/api/items/' + encodeURIComponent(t.dataset.save), {method: 'POST',
        headers: {'Content-Type': 'application/json'},
        body: JSON.stringify({stock: document.getElementById('stock-edit').value,
                              price: document.getElementById('price-edit').value})});
      const out = await r.json();
      if (out.ok) { S.editing = null; msg.textContent = 'Saved ' + t.dataset.save + '.';
        S.items = S.items.map(i => i.sku === out.item.sku ? out.item : i); draw(); }
      else { msg.textContent = 'Not saved: ' + out.error; }
    }
  });
  load();
});
