-- An item the built-in simulator made (or is making) in place of a vendor's model: its status
-- record says so (`provider: "simulator"`), so a stand-in is never taken for the real thing.
alter table generation_items add column simulated boolean not null default false;
