import type { CheckoutView } from './service.ts';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** A price in the smallest currency unit, formatted for people: 1000 USD -> "$10.00", 500 JPY -> "¥500". */
export function formatPrice(amount: number, currency: string): string {
  try {
    const format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
    return format.format(amount / 10 ** digits);
  } catch {
    return `${(amount / 100).toFixed(2)} ${currency}`;
  }
}

/** Headers every page gets: no external anything, not framed, not cached, not indexed. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; frame-ancestors 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  // Not no-referrer: with it browsers send `Origin: null` on the Pay form, which then looks cross-site.
  'referrer-policy': 'same-origin',
  'cache-control': 'no-store',
  'x-robots-tag': 'noindex',
};

const STYLE = `
  *{box-sizing:border-box}
  body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;background:#f4f5f7;color:#1c1e21}
  main{max-width:28rem;margin:3rem auto;background:#fff;border-radius:12px;box-shadow:0 1px 4px rgba(0,0,0,.12);padding:2rem}
  h1{font-size:1.4rem;margin:0 0 1rem}
  .notice{background:#fff6d6;border:1px solid #f0d98a;border-radius:8px;padding:.5rem .75rem;font-size:.9rem;margin-bottom:1.25rem}
  dl{display:grid;grid-template-columns:auto 1fr;align-items:baseline;gap:.4rem 1rem;margin:0 0 1.5rem}
  dt{color:#606770}
  dd{margin:0;font-weight:600;overflow-wrap:anywhere}
  .price{font-size:1.6rem}
  .actions{display:flex;gap:.75rem}
  .actions form{flex:1;margin:0}
  button,a.button{display:block;width:100%;padding:.75rem;font:inherit;font-weight:600;border-radius:8px;border:0;cursor:pointer;text-align:center;text-decoration:none}
  .pay{background:#1a7f37;color:#fff}
  .cancel{background:#e4e6eb;color:#1c1e21}
  .state{font-size:1.1rem;font-weight:600}
  .small{color:#606770;font-size:.85rem;margin-top:1.5rem}
`;

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

const STATE_TEXT: Record<string, string> = {
  paid: 'Paid. The credits have been added to the team.',
  cancelled: 'This checkout was cancelled. Nothing was charged and it cannot be paid any more.',
  expired: 'This checkout has expired. Nothing was charged; start a new top-up to buy credits.',
};

/** The page of one checkout: Pay and Cancel while a built-in checkout is open, else its state. */
export function checkoutPage(view: CheckoutView): string {
  const { checkout, status } = view;
  const price = formatPrice(checkout.amount, checkout.currency);
  const id = encodeURIComponent(checkout.id);
  const rows: Array<[string, string]> = [
    ['Team', view.teamName],
    ['Plan', view.planName],
    ['Credits', checkout.credits.toLocaleString('en-US')],
    ['Price', price],
  ];
  if (checkout.signature_name) rows.push(['Signed by', checkout.signature_name]);
  const details = `<dl>${rows
    .map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd${k === 'Price' ? ' class="price"' : ''}>${escapeHtml(v)}</dd>`)
    .join('')}</dl>`;

  let action: string;
  if (status === 'open' && checkout.provider === 'builtin') {
    action = `<div class="actions">
<form method="post" action="/checkout/${id}/pay"><button type="submit" class="pay">Pay ${escapeHtml(price)}</button></form>
<form method="post" action="/checkout/${id}/cancel"><button type="submit" class="cancel">Cancel</button></form>
</div>`;
  } else if (status === 'open') {
    action = `<p class="state">Waiting for the payment to be confirmed.</p>
<p><a class="button pay" href="${escapeHtml(checkout.checkout_url)}">Continue to payment</a></p>`;
  } else {
    action = `<p class="state">${escapeHtml(STATE_TEXT[status] ?? status)}</p>`;
  }

  // The built-in provider takes no money: its page says so whatever the checkout's state.
  const notice =
    checkout.provider !== 'builtin'
      ? ''
      : status === 'open'
        ? '<p class="notice"><strong>Test checkout, no payment:</strong> paying here takes no money and adds the credits at once.</p>'
        : '<p class="notice"><strong>Test checkout, no payment:</strong> no money was taken.</p>';
  return layout(
    `${view.planName}: checkout`,
    `<h1>Buy ${escapeHtml(view.planName)} credits</h1>
${notice}${details}
${action}
<p class="small">Checkout ${escapeHtml(checkout.id)}</p>`,
  );
}

/** The page for an id that is not a checkout (or not one this page can act on). */
export function notFoundPage(): string {
  return layout(
    'Checkout not found',
    '<h1>Checkout not found</h1><p>This checkout does not exist. Start a new top-up to buy credits.</p>',
  );
}

/** The page for a Pay or Cancel that did not come from the checkout page itself. */
export function crossSitePage(checkoutId: string): string {
  return layout(
    'Not allowed',
    `<h1>Not allowed</h1><p>Pay and Cancel work only from the buttons of <a href="/checkout/${encodeURIComponent(checkoutId)}">the checkout page</a>.</p>`,
  );
}
