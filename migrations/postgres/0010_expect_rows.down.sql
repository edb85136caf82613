DROP FUNCTION mnemo_expect_rows(bigint, bigint, text);
