-- The storage keys of the copies of a request's input media (the user's files, fetched once at
-- accept): what the request refers to and vendors are given. Deleted with the results at expires_at.
alter table generations add column input_keys text[] not null default '{}';
