import type { SpokenVoice, VoiceProfile } from '../../catalog/voices.ts';
import type { Queryable } from '../../db/pool.ts';

export interface VoiceRow {
  id: string;
  team_id: string;
  name: string;
  description: string | null;
  type: 'cloned' | 'designed';
  audio_url: string;
  custom_voice_id: string;
  /** The vendor whose voice custom_voice_id is; null: the service's own voice. */
  provider: string | null;
  influencer_id: string | null;
  influencer_name: string | null;
  /** The voice as a provider speaks it (built when the voice was made). */
  profile: VoiceProfile;
  created_at: Date;
  /** When its preview file is deleted (its generation's expires_at); null: kept. */
  expires_at: Date | null;
}

/** A voice of the team as it is spoken: its profile, and the vendor's voice when one made it. */
export function spokenVoice(voice: VoiceRow): SpokenVoice {
  return {
    id: voice.id,
    profile: voice.profile,
    vendor: voice.provider ? { provider: voice.provider, voice_id: voice.custom_voice_id } : null,
  };
}

const SELECT = `
  select v.id, v.team_id, v.name, v.description, v.type, v.audio_url, v.custom_voice_id, v.provider, v.influencer_id,
         i.name as influencer_name, v.profile, v.created_at,
         (select g.expires_at from generations g where g.id = v.generation_id) as expires_at
  from voices v left join influencers i on i.id = v.influencer_id`;

export async function selectVoice(db: Queryable, id: string): Promise<VoiceRow | undefined> {
  const { rows } = await db.query<VoiceRow>(`${SELECT} where v.id = $1::text`, [id]);
  return rows[0];
}

/** The influencer's most recently created voice. */
export async function selectLatestVoiceOfInfluencer(
  db: Queryable,
  influencerId: string,
): Promise<VoiceRow | undefined> {
  const { rows } = await db.query<VoiceRow>(
    `${SELECT} where v.influencer_id = $1::text order by v.created_at desc, v.id desc limit 1`,
    [influencerId],
  );
  return rows[0];
}

export async function selectVoicesOfTeam(
  db: Queryable,
  teamId: string,
  influencerId: string | undefined,
): Promise<VoiceRow[]> {
  const { rows } = await db.query<VoiceRow>(
    `${SELECT} where v.team_id = $1::text and ($2::text is null or v.influencer_id = $2::text)
     order by v.created_at desc, v.id desc`,
    [teamId, influencerId ?? null],
  );
  return rows;
}

export async function insertVoice(
  db: Queryable,
  v: {
    id: string;
    teamId: string;
    workspaceId: string | null;
    name: string;
    description: string | null;
    type: 'cloned' | 'designed';
    audioUrl: string;
    customVoiceId: string;
    provider: string | null;
    influencerId: string | null;
    profile: unknown;
    generationId: string;
  },
): Promise<void> {
  await db.query(
    `insert into voices (id, team_id, workspace_id, name, description, type, audio_url, custom_voice_id, provider,
       influencer_id, profile, generation_id)
     values ($1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::text, $8::text, $9::text, $10::text,
       $11::jsonb, $12::text)
     on conflict (id) do nothing`,
    [
      v.id,
      v.teamId,
      v.workspaceId,
      v.name,
      v.description,
      v.type,
      v.audioUrl,
      v.customVoiceId,
      v.provider,
      v.influencerId,
      JSON.stringify(v.profile),
      v.generationId,
    ],
  );
}
