// How a result is shown, by what it is (its URL's extension): an image, a video or an audio player,
// a 3D viewer, or a text preview; small in lists, full on a generation's page.
import type { Schemas } from '@genmedia/sdk';
import { contentTypeForFileName } from '../../lib/media-types.ts';
import { type Html, html } from './html.ts';

export type MediaKind = 'image' | 'video' | 'audio' | 'model' | 'text' | 'file';

/** What a result URL holds, by the content type the service keeps its extension as (media-types.ts). */
export function mediaKindOf(url: string): MediaKind {
  let path = url;
  try {
    path = new URL(url, 'http://x').pathname;
  } catch {
    // keep the text as it is
  }
  const type = contentTypeForFileName(path) ?? '';
  if (type.startsWith('image/')) return 'image';
  if (type.startsWith('video/')) return 'video';
  if (type.startsWith('audio/')) return 'audio';
  if (type.startsWith('model/')) return 'model';
  if (type.startsWith('text/') || type === 'application/json') return 'text';
  return 'file';
}

/** A result, as a list shows it (small). */
export function thumbnail(url: string, label: string): Html {
  switch (mediaKindOf(url)) {
    case 'image':
      return html`<a href="${url}"><img class="thumb" src="${url}" alt="${label}" loading="lazy"></a>`;
    case 'video':
      return html`<video class="thumb" src="${url}" controls preload="metadata" aria-label="${label}"></video>`;
    case 'audio':
      return html`<audio src="${url}" controls preload="none" aria-label="${label}"></audio>`;
    case 'model':
      return html`<a href="${url}">3D model (GLB)</a>`;
    default:
      return html`<a href="${url}">${label}</a>`;
  }
}

/** A result, as a generation's page shows it (full size, 3D in a viewer). */
export function fullView(url: string, label: string, text?: string): Html {
  switch (mediaKindOf(url)) {
    case 'image':
      return html`<figure class="media-result"><img src="${url}" alt="${label}"><figcaption><a href="${url}">${label}</a></figcaption></figure>`;
    case 'video':
      return html`<figure class="media-result"><video src="${url}" controls preload="metadata" aria-label="${label}"></video></figure>`;
    case 'audio':
      return html`<figure class="media-result"><audio src="${url}" controls preload="metadata" aria-label="${label}"></audio></figure>`;
    case 'model':
      return html`<figure class="media-result"><model-viewer src="${url}" alt="${label}" camera-controls auto-rotate></model-viewer><figcaption><a href="${url}">Download the GLB</a></figcaption></figure>`;
    case 'text':
      return html`<pre class="text-result">${text ?? ''}</pre><p><a href="${url}">${label}</a></p>`;
    default:
      return html`<p><a href="${url}">${label}</a></p>`;
  }
}

/**
 * Whether a record's page needs the 3D viewer: a result is a model, or an item will make one (a page
 * opened while the generation runs gets the viewer its live status swaps in at the end).
 */
export const needsModelViewer = (record: Pick<Schemas['GenerationStatus'], 'result_urls' | 'items'>) =>
  record.items.some((item) => item.type === 'model') || record.result_urls.some((url) => mediaKindOf(url) === 'model');
