-- The trace an item belongs to (a W3C traceparent: the span that accepted its generation), so that
-- every job of the item continues one trace whichever process or request queued it. NULL when
-- tracing was off at acceptance.
alter table generation_items add column traceparent text;
