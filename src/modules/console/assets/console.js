// The console's own script (no inline scripts: the CSP forbids them). Live status: an element
// with data-live="<url>" follows that event stream and asks htmx to reload its `hx-get` fragment on
// each status event, until the stream ends. The fragment replaces the element (outerHTML), so an
// event goes to whichever element holds that data-live now, one stream per URL however many swaps;
// an event that comes while a reload is in flight is applied once that reload has landed.
(() => {
  /** url -> { source, pending, done } */
  const streams = new Map();
  /** Elements whose htmx request is in flight. */
  const busy = new WeakSet();
  const holderOf = (url) => [...document.querySelectorAll('[data-live]')].find((el) => el.dataset.live === url);

  const stop = (url) => {
    streams.get(url)?.source.close();
    streams.delete(url);
  };

  const reload = (url) => {
    const stream = streams.get(url);
    if (!stream) return;
    const element = holderOf(url);
    if (!element) return stop(url);
    if (busy.has(element)) {
      stream.pending = true;
      return;
    }
    stream.pending = false;
    if (stream.done) streams.delete(url);
    if (window.htmx) window.htmx.trigger(element, 'status-changed');
  };

  const follow = (url) => {
    const known = streams.get(url);
    if (known) {
      if (known.pending) reload(url);
      return;
    }
    const source = new EventSource(url);
    const stream = { source, pending: false, done: false };
    streams.set(url, stream);
    source.addEventListener('status', (event) => {
      const record = JSON.parse(event.data);
      if (record.status === 'completed' || record.status === 'failed') {
        stream.done = true;
        source.close();
      }
      reload(url);
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED || !holderOf(url)) stop(url);
    };
  };

  const scan = (root) => {
    const own = root instanceof Element && root.matches('[data-live]') ? [root] : [];
    for (const element of [...own, ...root.querySelectorAll('[data-live]')]) follow(element.dataset.live);
  };
  document.addEventListener('DOMContentLoaded', () => scan(document));
  document.addEventListener('htmx:beforeRequest', (event) => busy.add(event.detail.elt));
  document.addEventListener('htmx:afterRequest', (event) => busy.delete(event.detail.elt));
  document.addEventListener('htmx:afterSettle', (event) => scan(event.target));
})();
