// Runs inside headless Chromium (CDP Runtime.evaluate, page scripts disabled), called as
// (SOURCE)(options). Lists what the browser parsed: every URL-bearing value of every
// element, and every piece of content that is not a URL. oracle.py compares the lists of
// the original page and of its rewrite.
//
// options.neutral: absent for the original page, whose values are resolved as the browser
// resolves them (URL-reflecting IDL properties where HTML has them, else the element's node
// document's base URL and encoding). For the rewrite it is a URL at another origin
// (https://...): every value is resolved against it and not against the rewrite's own
// <base>, so a value the rewrite left relative cannot hide behind an absolute <base>.
//
// Returns JSON: {records: [[key, tag, attr, raw, resolved, kind, context, parsed]],
// content: [string], ...}
// kind: 'url' (compared by resolved URL), 'fragment' (#x: must stay as written), 'empty'
// (an empty value that means "no resource": must stay empty), 'other' (javascript:,
// data:, mailto: ..., or unparsable: compared by raw value), 'computed' (a URL in a computed
// style of an element with a style attribute, as the browser resolved it in the page).
// context: where the value is, 'html' (an HTML attribute), 'foreign' (an SVG or MathML
// attribute) or 'css' (a URL in CSS text). parsed: whether the URL parser accepted the
// value against the base the browser used (for an IDL property, which gives the value as
// it is when it does not parse, this is checked apart).
((options) => {
  'use strict';
  const NS = {
    html: 'http://www.w3.org/1999/xhtml',
    svg: 'http://www.w3.org/2000/svg',
    math: 'http://www.w3.org/1998/Math/MathML',
    xlink: 'http://www.w3.org/1999/xlink',
  };
  const neutral = options.neutral || null;

  // HTML attributes holding one URL, with the IDL property that reflects it resolved
  // (HTML LS "reflect" for URL attributes), or null where the browser has none.
  const SINGLE = {
    href: [['a', 'area', 'link', 'base'], 'href'],
    src: [['img', 'script', 'iframe', 'frame', 'embed', 'source', 'track', 'audio', 'video', 'input'], 'src'],
    cite: [['blockquote', 'q', 'del', 'ins'], 'cite'],
    action: [['form'], 'action'],
    formaction: [['button', 'input'], 'formAction'],
    poster: [['video'], 'poster'],
  };
  // Single URLs with no resolving IDL property in Chromium (HTML LS obsolete features,
  // HTML 4.01 %URI attributes, microdata itemid): resolved here against the base.
  const MANUAL = {
    src: ['bgsound'], action: ['isindex'], manifest: ['html'], longdesc: ['img', 'iframe', 'frame'],
    lowsrc: ['img'], dynsrc: ['img'],
    background: ['body', 'table', 'thead', 'tbody', 'tfoot', 'tr', 'td', 'th'],
  };
  // HTML 4.01 §13.3: <object> and <applet> values relative to their codebase.
  const CODEBASE = { object: { data: 'one', classid: 'one', archive: 'spaces' }, applet: { archive: 'commas' } };
  const LISTS = { ping: ['a', 'area'], profile: ['head'] };
  const SRCSET = { srcset: ['img', 'source'], imagesrcset: ['link'] };
  // SVG presentation attributes that may hold url() (SVG 2 §13, §14, §15; CSS Masking).
  const SVG_CSS = ['fill', 'stroke', 'filter', 'clip-path', 'mask', 'marker-start', 'marker-mid',
    'marker-end', 'cursor'];
  // Only these mean "this document" when empty (HTML LS: following hyperlinks, form
  // submission); any other empty URL value means "no resource". Matched on the local name,
  // so an SVG <a href=""> counts too: clicked in Chromium, it navigates to the base, as
  // the HTML one does.
  const EMPTY_IS_DOCUMENT = ['a href', 'area href', 'form action', 'button formaction', 'input formaction'];

  // Computed properties read for elements with a style attribute.
  const COMPUTED = ['background-image', 'list-style-image', 'border-image-source', 'mask-image',
    'cursor', 'content', 'shape-outside'];
  const isSpace = (c) => c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === '\f';
  const stripUrl = (s) => s.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');

  // Resolution for one document. Original: a detached <a> owned by the document gives
  // "encoding-parse a URL relative to the document" (its base URL and its encoding).
  function resolver(doc) {
    let base = doc.baseURI;
    let owner = doc;
    if (neutral) {
      owner = document.implementation.createHTMLDocument('');
      const b = owner.createElement('base');
      b.setAttribute('href', neutral);
      owner.head.appendChild(b);
      base = neutral;
    }
    const a = owner.createElement('a');
    return {
      base,
      attr(raw) {
        try { new URL(raw, base); } catch (e) { return null; }
        a.setAttribute('href', raw);
        return a.href;
      },
      // CSS Values 4 §4.5: url() is parsed as UTF-8 against the style sheet's base.
      css(raw) {
        try { return new URL(raw, base).href; } catch (e) { return null; }
      },
    };
  }

  function kindOf(raw, resolved, tag, attr) {
    const t = stripUrl(raw);
    if (t === '') return EMPTY_IS_DOCUMENT.includes(tag + ' ' + attr) ? 'url' : 'empty';
    if (t.startsWith('#')) return 'fragment';
    if (resolved === null) return 'other';
    return /^(https?|file):/.test(resolved) ? 'url' : 'other';
  }

  // HTML LS "parse a srcset attribute": the URL of each image candidate (descriptors are
  // skipped, parentheses included, but not validated).
  function srcset(s) {
    const out = [];
    let i = 0;
    const n = s.length;
    while (true) {
      while (i < n && (isSpace(s[i]) || s[i] === ',')) i++;
      if (i >= n) return out;
      const start = i;
      while (i < n && !isSpace(s[i])) i++;
      let url = s.slice(start, i);
      if (/,$/.test(url)) {
        url = url.replace(/,+$/, '');
      } else {
        let inParens = false;
        for (; i < n; i++) {
          if (inParens) { if (s[i] === ')') inParens = false; continue; }
          if (s[i] === '(') inParens = true;
          else if (s[i] === ',') { i++; break; }
        }
      }
      out.push(url);
    }
  }

  // HTML LS "shared declarative refresh steps": the URL of a refresh, or null.
  function refresh(s) {
    let i = 0;
    const n = s.length;
    while (i < n && isSpace(s[i])) i++;
    const digits = i;
    while (i < n && s[i] >= '0' && s[i] <= '9') i++;
    if (i === digits && s[i] !== '.') return null;
    while (i < n && ((s[i] >= '0' && s[i] <= '9') || s[i] === '.')) i++;
    if (i >= n) return null;
    if (!(s[i] === ';' || s[i] === ',' || isSpace(s[i]))) return null;
    while (i < n && isSpace(s[i])) i++;
    if (s[i] === ';' || s[i] === ',') i++;
    while (i < n && isSpace(s[i])) i++;
    if (i >= n) return null;
    const start = i;
    const rest = s.slice(i);
    const m = /^[Uu][Rr][Ll][\t\n\f\r ]*=[\t\n\f\r ]*/.exec(rest);
    let u = m ? rest.slice(m[0].length) : (/^[Uu]/.test(rest) ? s.slice(start) : rest);
    if (u[0] === '"' || u[0] === "'") {
      const q = u[0];
      u = u.slice(1);
      const end = u.indexOf(q);
      if (end >= 0) u = u.slice(0, end);
    }
    return u;
  }

  // CSS Syntax 3 §4.3.7: an escape sequence.
  function unescapeCss(s) {
    return s.replace(/\\([0-9a-fA-F]{1,6}[\t\n\f\r ]?|\n|[\s\S])/g, (m, e) => {
      if (e === '\n') return '';
      if (/^[0-9a-fA-F]/.test(e)) {
        const cp = parseInt(e, 16);
        return (cp === 0 || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) ? '\ufffd' : String.fromCodePoint(cp);
      }
      return e;
    });
  }

  // The URLs in CSS text (url(), @import "...", the strings of image-set() and
  // -webkit-image-set()), and the text with each of them replaced by "*" (for the
  // content comparison). A small tokenizer after CSS Syntax 3 §4: comments, strings,
  // escapes, function names, parentheses.
  function scanCss(t) {
    const urls = [];
    let out = '';
    let i = 0;
    const n = t.length;
    const stack = [];
    let afterImport = false;
    const readString = (q) => {
      let j = i + 1;
      while (j < n && t[j] !== q && t[j] !== '\n') j += t[j] === '\\' ? 2 : 1;
      const body = t.slice(i + 1, Math.min(j, n));
      i = Math.min(j + 1, n);
      return body;
    };
    while (i < n) {
      const c = t[i];
      if (c === '/' && t[i + 1] === '*') {
        const end = t.indexOf('*/', i + 2);
        const j = end < 0 ? n : end + 2;
        out += t.slice(i, j);
        i = j;
      } else if (c === '"' || c === "'") {
        const raw = readString(c);
        if (afterImport || stack[stack.length - 1] === 'image-set') {
          urls.push(unescapeCss(raw));
          out += '"*"';
        } else {
          out += c + raw + c;
        }
        afterImport = false;
      } else if (c === '@' && /^@import\b/i.test(t.slice(i, i + 8))) {
        out += t.slice(i, i + 7);
        i += 7;
        afterImport = true;
      } else if (/[A-Za-z_\-\\\u0080-\uffff]/.test(c)) {
        const m = /^(?:[A-Za-z0-9_\-\u0080-\uffff]|\\[\s\S])+/.exec(t.slice(i));
        const name = unescapeCss(m[0]).toLowerCase();
        i += m[0].length;
        if (t[i] !== '(') { out += m[0]; afterImport = false; continue; }
        i++;
        if (name === 'url') {
          while (i < n && isSpace(t[i])) i++;
          let raw;
          if (t[i] === '"' || t[i] === "'") {
            raw = readString(t[i]);
          } else {
            let j = i;
            while (j < n && t[j] !== ')') j += t[j] === '\\' ? 2 : 1;
            raw = t.slice(i, Math.min(j, n)).replace(/[\t\n\f\r ]+$/, '');
            i = j;
          }
          while (i < n && isSpace(t[i])) i++;
          if (t[i] === ')') i++;
          urls.push(unescapeCss(raw));
          out += 'url(*)';
        } else {
          stack.push(name === 'image-set' || name === '-webkit-image-set' ? 'image-set' : 'function');
          out += m[0] + '(';
        }
        afterImport = false;
      } else {
        if (c === '(') stack.push('block');
        if (c === ')') stack.pop();
        if (!isSpace(c)) afterImport = false;
        out += c;
        i++;
      }
    }
    return { urls, masked: out };
  }

  // DOM "child text content": the data of the node's Text children, in tree order.
  function childTextContent(el) {
    let text = '';
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === Node.TEXT_NODE) text += c.data;
    }
    return text;
  }

  const records = [];
  const content = [];
  let index = 0;

  function visit(el, doc, res, where) {
    const i = index++;
    const ln = el.localName;
    const ns = el.namespaceURI;
    const tag = (ns === NS.svg ? 'svg:' : ns === NS.math ? 'math:' : '') + ln + where;
    const inDocument = el.ownerDocument === doc && el.isConnected;
    const used = new Set(['style']);
    const context = ns === NS.html ? 'html' : 'foreign';
    const add = (attr, raw, resolved, where, parsed) => {
      const kind = kindOf(raw, resolved, ln, attr.replace(/\[.*$/, ''));
      records.push([i + ' ' + attr, tag, attr, raw, resolved, kind, where, parsed]);
    };
    const get = (attr) => el.getAttribute(attr);
    // idl: `against` is an IDL property, which answers the raw value when it does not parse.
    const one = (attr, raw, against, idl) => {
      const resolved = against ? against(raw) : res.attr(raw);
      add(attr, raw, resolved, context, idl ? res.attr(raw) !== null : resolved !== null);
    };
    const css = (label, text) => {
      const scan = scanCss(text);
      scan.urls.forEach((u, k) => {
        const resolved = res.css(u);
        add(label + '[' + k + ']', u, resolved, 'css', resolved !== null);
      });
      return scan.masked;
    };

    if (ns === NS.html) {
      for (const [attr, [tags, prop]] of Object.entries(SINGLE)) {
        if (!tags.includes(ln) || !el.hasAttribute(attr)) continue;
        used.add(attr);
        const raw = get(attr);
        // The IDL property is the browser's own answer, for the original only: the rewrite
        // is judged against the neutral base.
        const idl = !neutral && inDocument;
        one(attr, raw, idl ? () => el[prop] : null, idl);
      }
      for (const [attr, tags] of Object.entries(MANUAL)) {
        if (tags.includes(ln) && el.hasAttribute(attr)) { used.add(attr); one(attr, get(attr)); }
      }
      if (el.hasAttribute('itemid')) { used.add('itemid'); one('itemid', get('itemid')); }
      for (const [attr, tags] of Object.entries(LISTS)) {
        if (!tags.includes(ln) || !el.hasAttribute(attr)) continue;
        used.add(attr);
        get(attr).split(/[\t\n\f\r ]+/).filter(Boolean).forEach((u, k) => one(attr + '[' + k + ']', u));
      }
      for (const [attr, tags] of Object.entries(SRCSET)) {
        if (!tags.includes(ln) || !el.hasAttribute(attr)) continue;
        used.add(attr);
        srcset(get(attr)).forEach((u, k) => one(attr + '[' + k + ']', u));
      }
      if (CODEBASE[ln]) {
        let against = null;
        if (el.hasAttribute('codebase')) {
          used.add('codebase');
          const cb = get('codebase');
          one('codebase', cb);
          const cbUrl = res.attr(cb);
          if (cbUrl) against = (raw) => { try { return new URL(raw, cbUrl).href; } catch (e) { return null; } };
        }
        for (const [attr, syntax] of Object.entries(CODEBASE[ln])) {
          if (!el.hasAttribute(attr)) continue;
          used.add(attr);
          const v = get(attr);
          const parts = syntax === 'one' ? [v] : syntax === 'spaces'
            ? v.split(/[\t\n\f\r ]+/).filter(Boolean) : v.split(',').map((x) => x.trim()).filter(Boolean);
          parts.forEach((u, k) => one(syntax === 'one' ? attr : attr + '[' + k + ']', u, against));
        }
      }
      if (ln === 'meta' && (get('http-equiv') || '').toLowerCase() === 'refresh' && el.hasAttribute('content')) {
        const u = refresh(get('content'));
        if (u !== null) {
          used.add('content');
          one('content', u);
          content.push('refresh after ' + /^[\t\n\f\r ]*[0-9.]*/.exec(get('content'))[0].trim());
        }
      }
      if (ln === 'iframe' && el.hasAttribute('srcdoc')) used.add('srcdoc');
    } else if (ns === NS.svg || ns === NS.math) {
      const h = el.getAttributeNS(null, 'href');
      if (h !== null) one('href', h);
      const x = el.getAttributeNS(NS.xlink, 'href');
      if (x !== null) one('xlink:href', x);
      used.add('href').add('xlink:href');
      if (ns === NS.math && ln === 'mglyph' && el.hasAttribute('src')) { used.add('src'); one('src', get('src')); }
      if (ns === NS.math && ln === 'math' && el.hasAttribute('altimg')) { used.add('altimg'); one('altimg', get('altimg')); }
      if (ns === NS.svg) {
        for (const attr of SVG_CSS) {
          if (!el.hasAttribute(attr)) continue;
          used.add(attr);
          content.push('@' + attr + ' ' + css(attr, get(attr)));
        }
      }
    }

    // Content that is not a URL: the element, its other attributes, its text and comments.
    const other = [];
    for (const a of Array.from(el.attributes)) {
      if (!used.has(a.name)) other.push(a.name + '=' + JSON.stringify(a.value));
    }
    content.push('<' + tag + (other.length ? ' ' + other.join(' ') : '') + '>');
    if (el.hasAttribute('style')) {
      content.push('@style ' + css('style', get('style')));
      // What the browser itself made of the declarations (CSS OM computed values, absolute
      // URLs): a rewrite that broke the CSS syntax or its escapes shows here.
      const view = inDocument && doc.defaultView;
      if (view) {
        // Chromium resolves a style attribute's url() when it parses it: one parsed before
        // the <base> keeps the document's URL. Setting it again (a trailing space changes
        // nothing else) parses it against the document's base URL as it is now.
        el.setAttribute('style', get('style') + ' ');
        const cs = view.getComputedStyle(el);
        for (const prop of COMPUTED) {
          const found = [...cs.getPropertyValue(prop).matchAll(/url\("((?:[^"\\]|\\.)*)"\)/g)];
          found.forEach((m, k) => {
            const u = unescapeCss(m[1]);
            records.push([i + ' computed:' + prop + '[' + k + ']', tag, 'computed:' + prop, u, u, 'computed', 'css', true]);
          });
        }
      }
    }
    const isStyle = ln === 'style' && (ns === NS.html || ns === NS.svg);
    // HTML LS §4.2.6 "update a style block" parses the element's child text content (its
    // Text children only, not its descendants'): Chromium does so for an SVG <style> with
    // element children too (its sheet has no rule from a child element's text).
    if (isStyle) content.push('css ' + css('text', childTextContent(el)));
    for (let c = el.firstChild; c; c = c.nextSibling) {
      if (c.nodeType === Node.TEXT_NODE && !isStyle) content.push('text ' + JSON.stringify(c.data));
      if (c.nodeType === Node.COMMENT_NODE) content.push('comment ' + JSON.stringify(c.data));
    }
  }

  // Pre-order, in document order; <template> contents and <iframe srcdoc> documents
  // (HTML LS §4.8.5: parsed as a document of their own, recursively) after their element.
  function walk(parent, doc, res, where) {
    for (let el = parent.firstElementChild; el; el = el.nextElementSibling) {
      visit(el, doc, res, where);
      if (el.namespaceURI === NS.html && el.localName === 'template') {
        walk(el.content, doc, res, where + '@template');
      }
      if (el.namespaceURI === NS.html && el.localName === 'iframe' && el.hasAttribute('srcdoc')) {
        const d = el.contentDocument;
        if (!d || d.URL !== 'about:srcdoc') {
          content.push('srcdoc document not loaded');
        } else {
          // Its base: its own <base>, else the parent document's (HTML LS "fallback base URL").
          walk(d, d, neutral ? res : resolver(d), where + '@srcdoc');
        }
      }
      walk(el, doc, res, where);
    }
  }

  walk(document, document, resolver(document), '');
  return JSON.stringify({
    url: location.href,
    base: document.baseURI,
    charset: document.characterSet,
    elements: index,
    records,
    content,
  });
})
