// Shared by the effect-*.html attack pages: every form and link named with data-to goes to
// the test server's /__effects/<path>, carrying the test's token (?t=) so the recording proxy's
// log tells which test sent it.
const T = new URLSearchParams(location.search).get('t') || 'none';
const at = (path) => '/__effects/' + path + (path.includes('?') ? '&' : '?') + 't=' + T;
const log = (text) => { document.getElementById('state').textContent = text; };
const send = (path, body, type) => fetch(at(path), {method: 'POST', body: body,
  headers: {'Content-Type': type || 'application/x-www-form-urlencoded'}})
  .then(() => log('sent ' + path), () => log('refused ' + path));
for (const f of document.querySelectorAll('form[data-to]')) {
  f.setAttribute('action', at(f.dataset.to));
  if ((f.getAttribute('method') || 'get').toLowerCase() === 'get') {  // its fields are the query
    const t = document.createElement('input');
    t.type = 'hidden'; t.name = 't'; t.value = T;
    f.appendChild(t);
  }
}
for (const a of document.querySelectorAll('a[data-to]')) a.setAttribute('href', at(a.dataset.to));
// data-hop: the same, reached through the test server's /__redirect (a 302 hop)
for (const a of document.querySelectorAll('a[data-hop]')) {
  a.setAttribute('href', '/__redirect?to=' + encodeURIComponent(at(a.dataset.hop)));
}
