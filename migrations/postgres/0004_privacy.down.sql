DROP TABLE mnemo_erasures;
DROP TABLE mnemo_export_chunks;
DROP TABLE mnemo_exports;
