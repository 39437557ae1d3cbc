// webrefs' side-door guard: judges, inside a frame or a worker, the connections that pass
// neither Chromium's request interception nor Playwright's routing. It must run before any
// code of the page or worker (an init script of every frame; the first statements of every
// worker script, put there by the browser-level interception for scripts loaded over the
// network and by this guard itself for blob: and data: workers).
//
// Called as (GUARD)(T): T is the rules table (webrefs.safety.pagerules.page_rules); the
// function reads its own source text before any other code runs, and puts (GUARD)(T) in front
// of the code of the blob: and data: workers this realm creates.
//
// - WebSocket, WebSocketStream (in workers; a frame's sockets pass Playwright's routing) and
//   WebTransport (everywhere) throw a SecurityError for a URL the rules refuse.
// - RTCPeerConnection throws NotAllowedError when T.rtc (WebRTC cannot be judged: it sends
//   UDP to whatever address a page or its peer names).
// - Worker and SharedWorker give a blob: or data: worker this guard first, and mark a module
//   worker loaded over the network (T.moduleMark in its URL's fragment, which is never sent)
//   so the interception puts the guard in front of it as a module import.
//
// Everything it calls at a page's or worker's request was taken from the realm before any
// code of theirs ran, and it iterates nothing a page can redefine: a page that replaced the
// array iterator gets no blob: or data: worker at all.
(function webrefsSideDoors(T) {
  'use strict';
  const G = globalThis;
  const O = Object;
  const R = Reflect;
  const apply = R.apply;
  const construct = R.construct;
  const defineProperty = O.defineProperty;
  const describe = O.getOwnPropertyDescriptor;
  const getPrototypeOf = O.getPrototypeOf;
  const hasOwn = O.prototype.hasOwnProperty;
  const KEY = '__webrefs_side_doors_' + T.id;
  if (apply(hasOwn, G, [KEY])) return;
  defineProperty(G, KEY, {value: true});
  if (!T.on) return;

  const StringProto = String.prototype;
  const sIndexOf = StringProto.indexOf;
  const sSlice = StringProto.slice;
  const sCode = StringProto.charCodeAt;
  const sLower = StringProto.toLowerCase;
  const fromCharCode = String.fromCharCode;
  const ErrorDOM = G.DOMException;
  const ErrorType = G.TypeError;
  const URLC = G.URL;
  const urlGet = (name) => describe(URLC.prototype, name).get;
  const uHref = urlGet('href');
  const uProtocol = urlGet('protocol');
  const uHostname = urlGet('hostname');
  const uPort = urlGet('port');
  const uHashGet = urlGet('hash');
  const uHashSet = describe(URLC.prototype, 'hash').set;
  const BlobC = G.Blob;
  const createObjectURL = URLC.createObjectURL;
  const encode = G.encodeURIComponent;
  const atobF = G.atob;
  const Bytes = G.Uint8Array;
  const Decoder = G.TextDecoder;
  const decode = Decoder ? Decoder.prototype.decode : null;
  const jsonQuote = G.JSON.stringify;
  const SELF = '(' + apply(Function.prototype.toString, webrefsSideDoors, []) + ')(' + jsonQuote(T) + ')';
  const iterSymbol = G.Symbol.iterator;
  const ArrayProto = getPrototypeOf([]);
  const arrayIterator = describe(ArrayProto, iterSymbol);
  const arrayIteratorProto = getPrototypeOf([][iterSymbol]());
  const arrayNext = describe(arrayIteratorProto, 'next');
  const inWorker = typeof G.WorkerGlobalScope === 'function' && G instanceof G.WorkerGlobalScope;
  const locationHref = (() => {
    const owner = inWorker ? G.WorkerGlobalScope.prototype : G;
    const getLocation = describe(owner, 'location').get;
    const proto = inWorker ? G.WorkerLocation.prototype : G.Location.prototype;
    const href = (describe(proto, 'href') || describe(apply(getLocation, G, []), 'href')).get;
    return () => apply(href, apply(getLocation, G, []), []);
  })();

  const indexOf = (s, t) => apply(sIndexOf, s, [t]);
  const slice = (s, a, b) => apply(sSlice, s, b === undefined ? [a] : [a, b]);
  const code = (s, i) => apply(sCode, s, [i]);
  const lower = (s) => apply(sLower, s, []);
  const refuse = (what, why) => new ErrorDOM(what + ' is blocked by the safety policy (' + why + ')',
                                             'SecurityError');

  // -- addresses ---------------------------------------------------------------------------
  // An IPv4 address is a number 0..2^32-1; an IPv6 one eight 16-bit groups.
  function ipv4(host) {
    let value = 0, part = -1, parts = 0;
    for (let i = 0; i <= host.length; i++) {
      const c = i < host.length ? code(host, i) : 46;
      if (c === 46) {
        if (part < 0 || part > 255) return null;
        value = value * 256 + part; part = -1; parts++;
      } else if (c >= 48 && c <= 57) {
        part = (part < 0 ? 0 : part * 10) + (c - 48);
      } else return null;
    }
    return parts === 4 ? value : null;
  }
  function ipv6(host) {
    const groups = [0, 0, 0, 0, 0, 0, 0, 0];
    const head = [], tail = [];
    let into = head, group = -1;
    for (let i = 0; i <= host.length; i++) {
      const c = i < host.length ? code(host, i) : 58;
      if (c === 58) {
        if (group >= 0) { defineProperty(into, into.length, {value: group, enumerable: true, configurable: true, writable: true}); group = -1; }
        if (i + 1 < host.length && code(host, i + 1) === 58) { into = tail; i++; }
      } else {
        const d = c >= 48 && c <= 57 ? c - 48 : c >= 97 && c <= 102 ? c - 87 : -1;
        if (d < 0) return null;
        group = (group < 0 ? 0 : group * 16) + d;
      }
    }
    if (head.length + tail.length > 8) return null;
    for (let i = 0; i < head.length; i++) groups[i] = head[i];
    for (let i = 0; i < tail.length; i++) groups[8 - tail.length + i] = tail[i];
    return groups;
  }
  function inside4(value, net, bits) {
    if (bits === 0) return true;
    const shift = 32 - bits;
    return Math.floor(value / 2 ** shift) === Math.floor(net / 2 ** shift);
  }
  function inside6(groups, net, bits) {
    for (let i = 0; i < 8 && bits > 0; i++, bits -= 16) {
      const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
      if ((groups[i] & mask) !== (net[i] & mask)) return false;
    }
    return true;
  }
  // The IPv4 address inside an IPv6 one (mapped, 6to4, Teredo, NAT64, IPv4-compatible).
  function inner4(g) {
    const low = g[6] * 65536 + g[7];
    const zero = (from, to) => { for (let i = from; i < to; i++) if (g[i] !== 0) return false; return true; };
    if (zero(0, 5) && g[5] === 0xffff) return low;
    if (g[0] === 0x2002) return g[1] * 65536 + g[2];
    if (g[0] === 0x2001 && g[1] === 0) return (0xffffffff - low);
    if (g[0] === 0x64 && g[1] === 0xff9b && zero(2, 6)) return low;
    if (zero(0, 6) && low > 1) return low;
    return null;
  }
  // null (public), or why not: 'metadata', 'link-local', 'non-public'.
  function classify4(v) {
    for (let i = 0; i < T.meta4.length; i++) if (T.meta4[i] === v) return 'metadata';
    if (inside4(v, 2851995648, 16)) return 'link-local';
    for (let i = 0; i < T.np4.length; i++) if (inside4(v, T.np4[i][0], T.np4[i][1])) return 'non-public';
    return null;
  }
  function classify6(g) {
    const v4 = inner4(g);
    if (v4 !== null) return classify4(v4);
    for (let i = 0; i < T.meta6.length; i++) if (inside6(g, T.meta6[i], 128)) return 'metadata';
    if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
    if ((g[0] & 0xe000) !== 0x2000) return 'non-public';
    for (let i = 0; i < T.np6.length; i++) if (inside6(g, T.np6[i][0], T.np6[i][1])) return 'non-public';
    return null;
  }

  // -- the judge -----------------------------------------------------------------------------
  const DEFAULT_PORTS = {__proto__: null, 'http:': 80, 'https:': 443, 'ws:': 80, 'wss:': 443};
  function matches(host, isAddress, port, pattern) {
    if (pattern[2] !== null && pattern[2] !== port) return false;
    if (pattern[0] === '*') return true;
    if (pattern[1]) {
      const suffix = '.' + pattern[0];
      return !isAddress && host.length > suffix.length
        && slice(host, host.length - suffix.length) === suffix;
    }
    return host === pattern[0];
  }
  // null when the rules allow `text` (resolved against this realm's URL), else the reason.
  function judge(text) {
    let url;
    try { url = new URLC(text, locationHref()); } catch (e) { return null; }  // the browser throws
    const scheme = apply(uProtocol, url, []);
    if (DEFAULT_PORTS[scheme] === undefined) return 'scheme ' + scheme;
    let host = lower(apply(uHostname, url, []));
    if (host.length > 1 && code(host, host.length - 1) === 46) host = slice(host, 0, host.length - 1);
    const portText = apply(uPort, url, []);
    const port = portText === '' ? DEFAULT_PORTS[scheme] : +portText;
    let v4 = null, v6 = null;
    if (host.length > 1 && code(host, 0) === 91) {
      host = slice(host, 1, host.length - 1);
      v6 = ipv6(host);
      if (v6 === null) return 'invalid host';
    } else v4 = ipv4(host);
    const isAddress = v4 !== null || v6 !== null;
    if (host === '') return 'invalid host';
    for (let i = 0; i < T.block.length; i++) {
      if (matches(host, isAddress, port, T.block[i])) return 'blocked domain ' + host;
    }
    let trusted = false;
    if (T.allow !== null) {
      let allowed = false;
      for (let i = 0; i < T.allow.length; i++) {
        if (matches(host, isAddress, port, T.allow[i])) {
          allowed = true;
          if (T.allow[i][0] !== '*' && !T.allow[i][1]) trusted = true;
        }
      }
      if (!allowed) return host + ' is not among the allowed domains';
    }
    if (T.link) for (let i = 0; i < T.names.length; i++) {
      if (T.names[i] === host) return host + ' is a cloud metadata service';
    }
    const fences = T.link || T.priv;
    if (!isAddress) return T.priv && !trusted ? host + ' cannot be resolved here to check its address' : null;
    const kind = v4 !== null ? classify4(v4) : classify6(v6);
    if (kind === 'metadata' && fences) return host + ' is a cloud metadata address';
    if (kind === 'link-local' && fences) return host + ' is a link-local address';
    if (kind !== null && T.priv && !trusted) return host + ' is not a public address';
    return null;
  }
  if (T.expose) defineProperty(G, T.expose, {value: judge});  // tests only

  // -- replacing constructors ----------------------------------------------------------------
  function replace(name, Native, make) {
    const wrapper = make(Native);
    defineProperty(wrapper, 'prototype', {value: Native.prototype});
    defineProperty(wrapper, 'length', {value: Native.length, configurable: true});
    const statics = ['CONNECTING', 'OPEN', 'CLOSING', 'CLOSED', 'generateCertificate'];
    for (let i = 0; i < statics.length; i++) {
      const d = describe(Native, statics[i]);
      if (d) defineProperty(wrapper, statics[i], d);
    }
    defineProperty(Native.prototype, 'constructor', {value: wrapper, writable: true, configurable: true});
    const d = describe(G, name);
    defineProperty(G, name, {value: wrapper, writable: d ? d.writable : true,
                             configurable: d ? d.configurable : true, enumerable: false});
    return wrapper;
  }
  function judged(name, what) {
    const Native = G[name];
    if (typeof Native !== 'function') return;
    replace(name, Native, (N) => ({[name]: function (url) {
      if (new.target === undefined) throw new ErrorType("Failed to construct '" + name + "': Please use the 'new' operator.");
      const text = '' + url;
      const why = judge(text);
      if (why !== null) throw refuse(what + ' to ' + text, why);
      const args = arguments.length > 1 ? [text, arguments[1]] : [text];
      return construct(N, args, new.target);
    }})[name]);
  }
  if (inWorker) {
    judged('WebSocket', 'A WebSocket');
    judged('WebSocketStream', 'A WebSocket');
  }
  judged('WebTransport', 'A WebTransport session');
  if (T.rtc) {
    const names = ['RTCPeerConnection', 'webkitRTCPeerConnection', 'RTCIceTransport'];
    const done = [];
    for (let i = 0; i < names.length; i++) {
      const Native = G[names[i]];
      if (typeof Native !== 'function') continue;
      let seen = null;
      for (let j = 0; j < done.length; j++) if (done[j][0] === Native) seen = done[j][1];
      if (seen !== null) {
        const d = describe(G, names[i]);
        defineProperty(G, names[i], {value: seen, writable: d.writable, configurable: d.configurable, enumerable: false});
        continue;
      }
      const name = names[i];
      const wrapper = replace(name, Native, () => ({[name]: function () {
        throw new ErrorDOM('WebRTC is blocked by the safety policy', 'NotAllowedError');
      }})[name]);
      done[done.length] = [Native, wrapper];
    }
  }

  // -- blob: and data: workers get this guard first ------------------------------------------
  let modulePrefix = null;  // made on first use: most documents never make a worker
  const prefixFor = (isModule) => {
    if (!isModule) return SELF + ';\n';
    if (modulePrefix === null) {
      modulePrefix = 'import ' + jsonQuote('data:text/javascript;charset=utf-8,' + encode(SELF)) + ';\n';
    }
    return modulePrefix;
  };
  const blobs = {__proto__: null};
  if (typeof createObjectURL === 'function') {
    defineProperty(URLC, 'createObjectURL', {value: {createObjectURL(object) {
      const made = apply(createObjectURL, URLC, [object]);
      if (object instanceof BlobC) blobs[made] = object;
      return made;
    }}.createObjectURL, writable: true, configurable: true, enumerable: true});
  }
  const pristine = () => {
    const a = describe(ArrayProto, iterSymbol);
    const n = describe(arrayIteratorProto, 'next');
    return a && n && a.value === arrayIterator.value && n.value === arrayNext.value;
  };
  function bytesToText(bytes) {
    if (!decode) throw refuse('A data: worker', 'no decoder');
    return apply(decode, new Decoder(), [bytes]);
  }
  function dataCode(href) {
    const comma = indexOf(href, ',');
    if (comma < 0) return null;
    const meta = lower(slice(href, 5, comma));
    const body = slice(href, comma + 1);
    let bytes;
    if (meta.length >= 7 && slice(meta, meta.length - 7) === ';base64') {
      let clean = '';
      for (let i = 0; i < body.length; i++) {
        const c = code(body, i);
        if (c !== 32 && c !== 9 && c !== 10 && c !== 12 && c !== 13) clean += fromCharCode(c);
      }
      const raw = atobF(clean);
      bytes = new Bytes(raw.length);
      for (let i = 0; i < raw.length; i++) bytes[i] = code(raw, i);
    } else {
      bytes = new Bytes(body.length * 3);
      let n = 0;
      for (let i = 0; i < body.length; i++) {
        const c = code(body, i);
        const hex = (k) => { const h = k >= 48 && k <= 57 ? k - 48 : k >= 97 && k <= 102 ? k - 87 : k >= 65 && k <= 70 ? k - 55 : -1; return h; };
        if (c === 37 && i + 2 < body.length && hex(code(body, i + 1)) >= 0 && hex(code(body, i + 2)) >= 0) {
          bytes[n++] = hex(code(body, i + 1)) * 16 + hex(code(body, i + 2)); i += 2;
        } else if (c < 128) bytes[n++] = c;
        else {  // a character the URL left unescaped: its UTF-8
          const text = encode(fromCharCode(c));
          for (let j = 0; j < text.length; j += 3) bytes[n++] = hex(code(text, j + 1)) * 16 + hex(code(text, j + 2));
        }
      }
      bytes = new Bytes(bytes.buffer, 0, n);
    }
    return bytesToText(bytes);
  }
  // The URL a worker of `text` is made from instead: its code with this guard first.
  function guardedWorkerURL(text, module) {
    let url;
    try { url = new URLC(text, locationHref()); } catch (e) { return text; }  // the browser throws
    const scheme = apply(uProtocol, url, []);
    const href = apply(uHref, url, []);
    const prefix = prefixFor(module);
    if (scheme === 'data:') {
      const body = dataCode(href);
      if (body === null) return text;
      return 'data:text/javascript;charset=utf-8,' + encode(prefix + body);
    }
    if (scheme !== 'blob:') {  // loaded over the network: guarded on its way in
      if (!module) return text;
      // a module's static imports run before its first statement: the interception puts
      // the guard in front of it as an import of its own when the fragment says it is one
      const hash = apply(uHashGet, url, []);
      apply(uHashSet, url, [(hash === '' ? '' : slice(hash, 1) + '-') + T.moduleMark]);
      return apply(uHref, url, []);
    }
    if (!pristine()) throw refuse('A blob: worker', 'the page replaced the array iterator');
    const known = blobs[href];
    const parts = known !== undefined ? [prefix, known]
      : [prefix + (module ? 'import ' + jsonQuote(href) + ';\n' : 'importScripts(' + jsonQuote(href) + ');\n')];
    return apply(createObjectURL, URLC, [new BlobC(parts, {__proto__: null, type: 'text/javascript'})]);
  }
  function workerOptions(options) {
    if (options === undefined || options === null || typeof options !== 'object') {
      return {__proto__: null, options: options, module: false};
    }
    const copy = {__proto__: null};
    const type = options.type;
    if (type !== undefined) copy.type = '' + type;
    const name = options.name;
    if (name !== undefined) copy.name = name;
    const credentials = options.credentials;
    if (credentials !== undefined) copy.credentials = credentials;
    return {__proto__: null, options: copy, module: copy.type === 'module'};
  }
  const workers = inWorker ? ['Worker'] : ['Worker', 'SharedWorker'];
  for (let i = 0; i < workers.length; i++) {
    const name = workers[i];
    const Native = G[name];
    if (typeof Native !== 'function') continue;
    replace(name, Native, (N) => ({[name]: function (url) {
      if (new.target === undefined) throw new ErrorType("Failed to construct '" + name + "': Please use the 'new' operator.");
      const text = typeof url === 'string' ? url : '' + url;
      const given = workerOptions(arguments[1]);
      const guarded = guardedWorkerURL(text, given.module);
      return construct(N, arguments.length > 1 ? [guarded, given.options] : [guarded], new.target);
    }})[name]);
  }
})
