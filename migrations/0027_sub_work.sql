-- Work an item needs made first by another operation (the speech a talking head's vendor is given,
-- the voice of an influencer video): a generation of its own at no price, tied to the item that
-- needs it under a purpose, made once per item and purpose, and hidden from the team's history and
-- status. It goes away with the item that needed it.
alter table generations
  add column parent_item_id text references generation_items (id) on delete cascade,
  add column purpose text;

create unique index generations_sub_work on generations (parent_item_id, purpose)
  where parent_item_id is not null;
