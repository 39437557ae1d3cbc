// A worker that tries to reach a blocked origin: ?what= ws (a WebSocket to ?ws=), fetch,
// import (importScripts of ?http=), sse (an EventSource), wt (a WebTransport session to
// ?wt=), nested-ws / nested-fetch (a worker of its own does it). A shared worker answers on
// the port of each page that connects.
const params = new URL(location.href).searchParams;
const what = params.get('what');
const ws = params.get('ws');
const http = params.get('http');
const wt = params.get('wt');
let say = (t) => postMessage(t);
const ports = [];
if (typeof onconnect !== 'undefined' || self.constructor.name === 'SharedWorkerGlobalScope') {
  const said = [];
  say = (t) => { said.push(t); for (const p of ports) p.postMessage(t); };
  self.onconnect = (e) => { const p = e.ports[0]; ports.push(p); for (const t of said) p.postMessage(t); };
}
function go() {
  try {
    if (what === 'ws') {
      const s = new WebSocket(ws);
      s.onopen = () => say('socket open');
      s.onerror = () => say('socket error');
    } else if (what === 'fetch') {
      fetch(http + '&worker-fetch').then(() => say('fetched'), () => say('fetch failed'));
    } else if (what === 'import') {
      importScripts(http + '&import');
      say('imported');
    } else if (what === 'wt') {
      const t = new WebTransport(wt);
      t.ready.then(() => say('transport open'), () => say('transport error'));
    } else if (what === 'sse') {
      const s = new EventSource(http + '&sse');
      s.onerror = () => say('sse error');
    } else if (what === 'nested-ws' || what === 'nested-fetch') {
      const inner = new Worker('worker.js?' + new URLSearchParams({what: what.slice(7), ws, http}));
      inner.onmessage = (e) => say('nested ' + e.data);
      inner.onerror = () => say('nested worker error');
    }
  } catch (e) { say('refused ' + e.name); }
}
go();
