-- Where a batch run stands (issue 25: batches resumable mid-run after a
-- kill). A run that pages through users (or records) writes, in the same
-- transaction as each page's writes, the position after that page: the
-- last user id (user and key for records), with what the run needs to
-- tell whether it may continue there. A run of the period that finds a
-- cursor continues after it; one that finishes clears it, and a re-run for
-- late data (the row set back to pending) starts from the beginning.
-- Opaque to the store: package batch encodes it.
ALTER TABLE mnemo_batch_runs ADD COLUMN page_cursor text;
