// A team's library: its influencers (face image, training status, whether ready), its voices with a
// preview player, and its music tracks with players, their metadata and their generations.
import type { ResponseOf } from '@genmedia/sdk';
import { type Html, html } from '../html.ts';
import { page, statusBadge } from '../layout.ts';
import type { ConsoleRoute } from '../types.ts';

type Influencers = ResponseOf<'/api/v1/influencers', 'get'>;
type Voices = ResponseOf<'/api/v1/voices', 'get'>;
type Tracks = ResponseOf<'/api/v1/music', 'get'>;

/** Whether a file past its retention time is gone (its URL answers 410). */
const expired = (expiresAt: string | null, now: number) => expiresAt !== null && Date.parse(expiresAt) <= now;

/** An audio player, or why there is none. */
function player(url: string, label: string, expiresAt: string | null, now: number): Html {
  if (expired(expiresAt, now)) return html`<small class="muted">File deleted on ${expiresAt} (retention)</small>`;
  return html`<audio src="${url}" controls preload="none" aria-label="${label}"></audio>${
    expiresAt ? html`<br><small class="muted">kept until ${expiresAt}</small>` : ''
  }`;
}

function influencerTable(influencers: Influencers): Html {
  if (influencers.length === 0)
    return html`<p class="muted">No influencers yet: create one from 1 to 20 photos with <code>POST /api/v1/influencers/create</code>.</p>`;
  return html`<table>
<thead><tr><th scope="col">Face</th><th scope="col">Influencer</th><th scope="col">Training</th><th scope="col">Ready</th><th scope="col">Created</th></tr></thead>
<tbody>${influencers.map(
    (i) => html`<tr>
<td><a href="${i.face_image}"><img class="thumb" src="${i.face_image}" alt="Face image of ${i.name}" loading="lazy"></a></td>
<td><strong>${i.name}</strong><br><small class="muted"><code>${i.id}</code></small><br><a href="${i.best_full_image}">Best full-body image</a></td>
<td>${statusBadge(i.training_status)}</td>
<td>${i.ready_for_generation ? html`<span class="ok">ready</span>` : html`<span class="muted">not yet</span>`}</td>
<td><small>${i.created_at}</small></td>
</tr>`,
  )}</tbody>
</table>`;
}

function voiceTable(voices: Voices, now: number): Html {
  if (voices.length === 0)
    return html`<p class="muted">No voices yet: design one from a description or clone one from a sample with <code>POST /api/v1/voices/generate</code>.</p>`;
  return html`<table>
<thead><tr><th scope="col">Voice</th><th scope="col">Preview</th><th scope="col">Type</th><th scope="col">Influencer</th><th scope="col">Created</th></tr></thead>
<tbody>${voices.map(
    (v) => html`<tr>
<td><strong>${v.name}</strong><br><small class="muted"><code>${v.id}</code></small>${v.description ? html`<br><small>${v.description}</small>` : ''}</td>
<td>${player(v.audio_url, `Preview of the voice ${v.name}`, v.expires_at, now)}</td>
<td>${v.type}</td>
<td>${v.influencer_name ?? ''}</td>
<td><small>${v.created_at}</small></td>
</tr>`,
  )}</tbody>
</table>`;
}

function trackTable(tracks: Tracks, now: number): Html {
  if (tracks.length === 0)
    return html`<p class="muted">No music yet: generate a track in the <a href="/console/playground">playground</a> or with <code>POST /api/v1/music/generate</code>.</p>`;
  return html`<table>
<thead><tr><th scope="col">Track</th><th scope="col">Listen</th><th scope="col">Status</th><th scope="col">Generation</th><th scope="col">Created</th></tr></thead>
<tbody>${tracks.map(
    (t) => html`<tr>
<td><strong>${t.title}</strong>${t.style ? html`<br><small>${t.style}</small>` : ''}<br><small class="muted"><code>${t.id}</code></small></td>
<td>${player(t.url, `Listen to ${t.title}`, t.expires_at, now)}${expired(t.expires_at, now) ? '' : html`<br><a href="${t.url}" download>Download</a>`}</td>
<td>${statusBadge(t.status)}</td>
<td><a href="/console/generations/${encodeURIComponent(t.generation_id)}">${t.generation_id}</a></td>
<td><small>${t.created_at}</small></td>
</tr>`,
  )}</tbody>
</table>`;
}

export const libraryRoutes: ConsoleRoute[] = [
  {
    method: 'GET',
    path: '/console/library',
    who: 'team',
    async handler(ctx) {
      const { session } = ctx;
      const [influencers, voices, tracks] = await Promise.all([
        ctx.api<Influencers>('GET', '/api/v1/influencers'),
        ctx.api<Voices>('GET', '/api/v1/voices'),
        ctx.api<Tracks>('GET', '/api/v1/music'),
      ]);
      const now = Date.now();
      return page(
        { title: 'Library', session, current: '/console/library' },
        html`<nav aria-label="Library sections"><ul><li><a href="#influencers">Influencers (${influencers.length})</a></li><li><a href="#voices">Voices (${voices.length})</a></li><li><a href="#music">Music (${tracks.length})</a></li></ul></nav>
<h2 id="influencers">Influencers</h2>
${influencerTable(influencers)}
<h2 id="voices">Voices</h2>
${voiceTable(voices, now)}
<h2 id="music">Music</h2>
${trackTable(tracks, now)}`,
      );
    },
  },
];
