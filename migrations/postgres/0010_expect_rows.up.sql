-- mnemo_expect_rows lets a statement check in the database how many rows
-- it changed: it raises no_data_found when got is not want. A write that
-- must find its row (a memory to update, the session to settle) can then
-- be sent with the COMMIT, in the same round trip, and still roll the
-- transaction back when the row is gone. Postgres only: SQLite's
-- statements run in process, one at a time, and are checked in Go.
CREATE FUNCTION mnemo_expect_rows(got bigint, want bigint, what text) RETURNS bigint
LANGUAGE plpgsql VOLATILE AS $$
BEGIN
    IF got <> want THEN
        RAISE EXCEPTION '%: % of % rows to change not found', what, want - got, want
            USING ERRCODE = 'no_data_found';
    END IF;
    RETURN got;
END
$$;
