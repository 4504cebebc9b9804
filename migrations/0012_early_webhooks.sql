-- A vendor's webhook can arrive before the submit that started the job has recorded the vendor's
-- answer (a fast job, a busy database). Such a webhook marks the item, found by the item id its
-- URL carries; recording the answer then polls the job at once instead of waiting for the
-- safety-net poll. The item's row lock orders the two.
alter table generation_items add column vendor_webhook_at timestamptz;
