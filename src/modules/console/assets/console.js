// The console's own script (no inline scripts: the CSP forbids them). Live status: an element
// with data-live="<url>" follows that event stream and asks htmx to reload its `hx-get` fragment on
// each status event, until the stream ends.
(() => {
  const follow = (element) => {
    if (element.dataset.following) return;
    element.dataset.following = 'yes';
    const source = new EventSource(element.dataset.live);
    source.addEventListener('status', (event) => {
      const record = JSON.parse(event.data);
      if (window.htmx) window.htmx.trigger(element, 'status-changed', { record });
      if (record.status === 'completed' || record.status === 'failed') source.close();
    });
    source.onerror = () => {
      if (source.readyState === EventSource.CLOSED || !document.body.contains(element)) source.close();
    };
  };
  const scan = (root) => {
    for (const element of root.querySelectorAll('[data-live]')) follow(element);
  };
  document.addEventListener('DOMContentLoaded', () => scan(document));
  document.addEventListener('htmx:afterSettle', (event) => scan(event.target));
})();
