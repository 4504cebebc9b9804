-- The vendor routes an item was accepted with, so that a change of a model's live routes applies
-- to requests accepted after it: a list, the operator's list for the item's model when it was
-- accepted (model_routes, 0031); the JSON string "catalog", the catalog's routes (the operator had
-- set none). Running, failover and retries use it. NULL: accepted before routes were recorded, it
-- runs on the routes in force when it runs.
alter table generation_items add column accepted_routes jsonb;
