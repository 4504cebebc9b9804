-- The margin report reads the generations created in a range, every team's at once (the team
-- indexes lead with the team); sub-work is counted with the item that needed it, not by its date.
create index generations_created_idx on generations (created_at) where parent_item_id is null;
