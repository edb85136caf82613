DROP TABLE mnemo_rolling_summaries;
DROP TABLE mnemo_buffer;
DROP TABLE mnemo_records;
